package kube_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// A request that is not a stream ends at the timeout, headers or body; a
// watch, a followed log and an upgrade are not cut.
func TestLimitRequests(t *testing.T) {
	release := make(chan struct{})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow-body":
			w.WriteHeader(200)
			_, _ = io.WriteString(w, "{")
			w.(http.Flusher).Flush()
		case "/stream", "/api/v1/namespaces/a/pods/p/log":
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			time.Sleep(400 * time.Millisecond)
			_, _ = io.WriteString(w, "done")
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer server.Close()
	defer close(release)
	cfg := &rest.Config{Host: server.URL, Timeout: 150 * time.Millisecond}
	kube.LimitRequests(cfg)
	if cfg.Timeout != 0 {
		t.Fatalf("cfg.Timeout %s left on the HTTP client", cfg.Timeout)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (string, error) {
		resp, err := client.Get(server.URL + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	for _, path := range []string{"/silent", "/slow-body"} {
		_, err := get(path)
		var timeout *kube.RequestTimeoutError
		if !errors.As(err, &timeout) || exit.Code(err) != exit.Error || exit.Hint(err) == "" {
			t.Errorf("GET %s: %v (exit %d), want a request timeout, exit 1", path, err, exit.Code(err))
		}
	}
	for _, path := range []string{"/stream?watch=true", "/api/v1/namespaces/a/pods/p/log", "/stream?follow=true"} {
		if body, err := get(path); err != nil || body != "done" {
			t.Errorf("GET %s: %q, %v: a stream must not be cut", path, body, err)
		}
	}
	// The caller's own cancellation stays a cancellation.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", server.URL+"/silent", nil)
	_, err = client.Do(req)
	var timeout *kube.RequestTimeoutError
	if err == nil || errors.As(err, &timeout) {
		t.Errorf("a cancelled request: %v", err)
	}
}

func TestStreaming(t *testing.T) {
	for url, want := range map[string]bool{
		"/apis/kubeflow.org/v1/namespaces/a/tfjobs?limit=500":    false,
		"/apis/kubeflow.org/v1/namespaces/a/tfjobs?watch=true":   true,
		"/api/v1/namespaces/a/pods/p/exec?command=sh":            true,
		"/api/v1/namespaces/a/pods/p/portforward":                true,
		"/api/v1/namespaces/a/pods/p/log?follow=true":            true,
		"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews": false,
		"/api/v1/watch/namespaces/a/pods":                        true,
		"/api/v1/namespaces/a/pods?labelSelector=x%3Dy&watch=1":  true,
	} {
		req, _ := http.NewRequest("GET", "https://h"+url, nil)
		if got := kube.Streaming(req); got != want {
			t.Errorf("Streaming(%s) = %v", url, got)
		}
	}
	req, _ := http.NewRequest("GET", "https://h/x", nil)
	req.Header.Set("Upgrade", "websocket")
	if !kube.Streaming(req) || strings.Contains(req.URL.Path, "exec") {
		t.Errorf("an upgrade is a stream")
	}
}
