#!/usr/bin/env bash
# kueue-webhooks.sh MANIFESTS URL CA_BUNDLE: Kueue's own webhook
# configurations (config/components/webhook/manifests.yaml of its module),
# kept to the webhooks of what the local cluster runs under Kueue (its own
# objects and the integrations of manifests/kueue-config.yaml) and pointed
# at URL (the controller manager out of cluster) instead of a Service. The
# webhooks of Pods, Deployments and StatefulSets are left out: the cluster
# does not run those integrations, and with failurePolicy Fail they would
# stand between every pod and the API server.
set -euo pipefail
keep='/(mutate|validate)-(kueue-x-k8s-io-[^/]*|kubeflow-org-v1-(tfjob|pytorchjob|xgboostjob|paddlejob|jaxjob)|trainer-kubeflow-org-[^/]*-trainjob)$'
awk -v keep="$keep" -v url="$2" -v ca="$3" '
  function flush() { if (item != "" && item_path ~ keep) printf "%s", item; item = ""; item_path = "" }
  /^---/ { flush(); print; in_items = 0; next }
  /^kind: MutatingWebhookConfiguration/ { kind = "mutating" }
  /^kind: ValidatingWebhookConfiguration/ { kind = "validating" }
  /^  name: (mutating|validating)-webhook-configuration$/ { print "  name: easyai-dev-kueue-" kind; next }
  /^webhooks:/ { print; in_items = 1; next }
  !in_items { print; next }
  /^- / { flush() }
  /^    service:$/ || /^      name: webhook-service$/ || /^      namespace: system$/ { next }
  /^      path: / { item_path = $2; item = item "    url: " url $2 "\n    caBundle: " ca "\n"; next }
  { item = item $0 "\n" }
  END { flush() }
' "$1"
