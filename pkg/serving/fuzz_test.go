package serving

import (
	"strings"
	"testing"
	"unicode"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzSummarize: a Deployment's labels and annotations are written by
// anyone who may edit it; whatever they hold, a summary never carries a
// control character to the terminal, and reading it never panics.
func FuzzSummarize(f *testing.F) {
	f.Add("vllm", "8000", "mnist", "pvc:team:/m", "v1", "ImagePullBackOff", "pull failed\x1b[2J")
	f.Add("\x1b]52;c;aGk=\x07", "-1", "a\nb", "\r", "v\x00", "", "")
	f.Fuzz(func(t *testing.T, framework, port, modelFrom, model, version, reason, message string) {
		replicas := int32(2)
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Labels: map[string]string{Label: "s", VersionLabel: version},
				Annotations: map[string]string{FrameworkAnnotation: framework, PortAnnotation: port, ModelFromAnnotation: modelFrom, ModelAnnotation: model}},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas},
			Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: reason, Message: message}}},
		}
		s := (&Client{}).summarize([]*appsv1.Deployment{d})
		pod := podOf(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{VersionLabel: version}},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}}}})
		fields := []string{s.Framework, s.ModelFrom, s.Model, s.Reason, pod.Version, pod.Reason, pod.State}
		for _, v := range s.Versions {
			fields = append(fields, v.Name)
		}
		for _, field := range fields {
			if strings.IndexFunc(field, unicode.IsControl) >= 0 {
				t.Fatalf("a control character reaches the output: %q", field)
			}
		}
	})
}
