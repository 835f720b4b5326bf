package cron

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func spec() *Spec {
	return &Spec{Name: "nightly", Namespace: "team-a", Schedule: "0 2 * * *", TimeZone: "Asia/Shanghai", Concurrency: Forbid, Keep: 3,
		JobFile: []byte("kind: tf\nimage: x:1\n"), Image: "easyai:1", User: "alice"}
}

func TestBadSpecs(t *testing.T) {
	for want, change := range map[string]func(*Spec){
		`--schedule "61 * * * *"`:   func(s *Spec) { s.Schedule = "61 * * * *" },
		`--schedule "every day"`:    func(s *Spec) { s.Schedule = "every day" },
		`--timezone "Mars/Olympus"`: func(s *Spec) { s.TimeZone = "Mars/Olympus" },
		`--concurrency "Sometimes"`: func(s *Spec) { s.Concurrency = "Sometimes" },
		"--keep -1":                 func(s *Spec) { s.Keep = -1 },
		`schedule name "Nightly"`:   func(s *Spec) { s.Name = "Nightly" },
		"no launcher image":         func(s *Spec) { s.Image = "" },
	} {
		s := spec()
		change(s)
		if _, err := Render(s); err == nil || !strings.Contains(err.Error(), want) || exit.Code(err) != exit.Usage {
			t.Errorf("%s: %v", want, err)
		}
	}
}

func TestRenderAndLifecycle(t *testing.T) {
	objs, err := Render(spec())
	if err != nil {
		t.Fatal(err)
	}
	pod := objs.CronJob.Spec.JobTemplate.Spec.Template.Spec
	if pod.ServiceAccountName != DefaultServiceAccount || strings.Join(pod.Containers[0].Args, " ") != "cron launch nightly -n team-a" ||
		*objs.CronJob.Spec.TimeZone != "Asia/Shanghai" || objs.ConfigMap.Data[JobFileKey] != "kind: tf\nimage: x:1\n" {
		t.Errorf("rendered %+v %+v", objs.CronJob.Spec, objs.ConfigMap)
	}
	ctx := context.Background()
	c := &Client{Kube: fake.NewSimpleClientset(), Now: func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }}
	if err := c.Create(ctx, objs, false); err == nil || !strings.Contains(err.Error(), "ServiceAccount easyai-cron does not exist") {
		t.Errorf("without the ServiceAccount: %v", err)
	}
	if _, err := c.Kube.CoreV1().ServiceAccounts("team-a").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceAccount}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, objs, false); err != nil {
		t.Fatal(err)
	}
	s, err := c.Get(ctx, "team-a", "nightly")
	if err != nil || s.Suspended || s.Keep != 3 || s.Concurrency != Forbid || s.NextRun.IsZero() {
		t.Fatalf("get: %+v, %v", s, err)
	}
	// 02:00 in Shanghai is 18:00 UTC.
	if s.NextRun.UTC().Hour() != 18 {
		t.Errorf("next run %s, want 18:00 UTC", s.NextRun.UTC())
	}
	settings, err := c.Settings(ctx, "team-a", "nightly")
	if err != nil || string(settings.JobFile) != "kind: tf\nimage: x:1\n" || settings.Keep != 3 {
		t.Errorf("settings: %+v, %v", settings, err)
	}
	if err := c.SetSuspended(ctx, "team-a", "nightly", true); err != nil {
		t.Fatal(err)
	}
	if made, err := c.Trigger(ctx, "team-a", "nightly"); err != nil || made != "launcher job nightly-manual-1795737600" {
		t.Errorf("trigger: %q, %v", made, err)
	}
	job, err := c.Kube.BatchV1().Jobs("team-a").Get(ctx, "nightly-manual-1795737600", metav1.GetOptions{})
	if err != nil || job.Annotations["cronjob.kubernetes.io/instantiate"] != "manual" || job.OwnerReferences[0].Name != "nightly" {
		t.Errorf("trigger made %+v, %v", job, err)
	}
	if err := c.Create(ctx, objs, false); err == nil || exit.Code(err) != exit.Usage {
		t.Errorf("a second create: %v", err)
	}
	if err := c.Delete(ctx, "team-a", "nightly"); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "team-a", "nightly"); exit.Code(err) != exit.NotFound {
		t.Errorf("deleting again: %v", err)
	}
}

func TestDecide(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 11, 27, h, 0, 0, 0, time.UTC) }
	jobs := []JobOf{{"j1", true, at(1)}, {"j2", true, at(2)}, {"j3", true, at(3)}, {"j4", false, at(4)}}
	if d := Decide(Forbid, 2, jobs); d.Skip != "j4" || strings.Join(d.Prune, ",") != "j1" {
		t.Errorf("forbid: %+v", d)
	}
	if d := Decide(Replace, 0, jobs); d.Skip != "" || strings.Join(d.Replace, ",") != "j4" || len(d.Prune) != 0 {
		t.Errorf("replace: %+v", d)
	}
	if d := Decide(Allow, 1, jobs); d.Skip != "" || len(d.Replace) != 0 || strings.Join(d.Prune, ",") != "j1,j2" {
		t.Errorf("allow: %+v", d)
	}
	if got := RunName("nightly", at(2)); got != "nightly-20261127-020000" {
		t.Errorf("run name %s", got)
	}
}
