package jobmodel

import (
	"strings"
	"testing"
)

func TestLabelSafe(t *testing.T) {
	for in, want := range map[string]string{
		"alice":                           "alice",
		"system:serviceaccount:ci:runner": "system_serviceaccount_ci_runner",
		"alice@example.com":               "alice_example.com",
		strings.Repeat("a", 70):           strings.Repeat("a", 63),
		"easyai-dev-admin":                "easyai-dev-admin",
		"-weird-":                         "weird",
	} {
		if got := LabelSafe(in); got != want {
			t.Errorf("LabelSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOwnKeys(t *testing.T) {
	for _, k := range []string{ManagedByLabel, NameLabel, KindLabel, UserLabel, ExperimentLabel} {
		if !IsOwnLabel(k) {
			t.Errorf("%s is easyai's label", k)
		}
	}
	for _, k := range []string{UserAnnotation, RequestAnnotation, JobDirAnnotation, VersionAnnotation, RerunOfAnnotation} {
		if !IsOwnAnnotation(k) {
			t.Errorf("%s is easyai's annotation", k)
		}
	}
	// Given by the user, at submit.
	if IsOwnAnnotation(EndpointsAnnotation) || IsOwnLabel("team") || IsOwnLabel(RoleLabel) {
		t.Error("a key the user gives is not easyai's own")
	}
}
