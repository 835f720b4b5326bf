// Command training-operator starts the Kubeflow training-operator controllers
// of every v1 kind against a kubeconfig, for the local development cluster.
//
// The upstream command expects to run in cluster: it manages its own webhook
// certificates through a Secret in namespace kubeflow. Here the cluster scripts
// generate the certificate and register the webhooks by URL, so this command
// only wires the operator's exported reconcilers and webhooks to a manager.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	volcanoscheduling "volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	volcanoclient "volcano.sh/apis/pkg/client/clientset/versioned"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/kubeflow/training-operator/pkg/config"
	controllerv1 "github.com/kubeflow/training-operator/pkg/controller.v1"
	"github.com/kubeflow/training-operator/pkg/controller.v1/common"
	"github.com/kubeflow/training-operator/pkg/webhooks"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "training-operator:", err)
		os.Exit(1)
	}
}

func run() error {
	probeAddr := flag.String("health-probe-bind-address", "127.0.0.1:0", "address of /healthz and /readyz")
	webhookHost := flag.String("webhook-host", "127.0.0.1", "address the webhook server listens on")
	webhookPort := flag.Int("webhook-port", 0, "port of the webhook server (0: no webhooks)")
	certDir := flag.String("webhook-cert-dir", "", "directory holding tls.crt and tls.key of the webhook server")
	gang := flag.String("gang-scheduler-name", "", `gang scheduler: "volcano" or empty for none`)
	threads := flag.Int("controller-threads", 2, "worker threads per controller")
	zapOpts := zap.Options{Development: true, StacktraceLevel: zapcore.DPanicLevel}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	// The pod templates the controllers add (PyTorch's init container) read
	// these; upstream sets them from flags with the same defaults.
	config.Config.PyTorchInitContainerImage = config.PyTorchInitContainerImageDefault
	config.Config.PyTorchInitContainerTemplateFile = config.PyTorchInitContainerTemplateFileDefault
	config.Config.PyTorchInitContainerMaxTries = config.PyTorchInitContainerMaxTriesDefault
	config.Config.MPIKubectlDeliveryImage = config.MPIKubectlDeliveryImageDefault

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(kubeflowv1.AddToScheme(scheme))
	utilruntime.Must(volcanoscheduling.AddToScheme(scheme))

	// controller-runtime registers --kubeconfig itself.
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	restConfig.QPS, restConfig.Burst = 50, 100

	opts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: *probeAddr,
	}
	if *webhookPort != 0 {
		opts.WebhookServer = webhook.NewServer(webhook.Options{Host: *webhookHost, Port: *webhookPort, CertDir: *certDir})
	}
	mgr, err := ctrl.NewManager(restConfig, opts)
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	ready := healthz.Ping
	if *webhookPort != 0 {
		ready = mgr.GetWebhookServer().StartedChecker()
	}
	if err := mgr.AddReadyzCheck("readyz", ready); err != nil {
		return err
	}

	setupGang := common.GenNonGangSchedulerSetupFunc()
	switch *gang {
	case "":
	case string(common.GangSchedulerVolcano):
		setupGang = common.GenVolcanoSetupFunc(volcanoclient.NewForConfigOrDie(restConfig))
	default:
		return fmt.Errorf("--gang-scheduler-name %q: only volcano is supported here", *gang)
	}

	kinds := make([]string, 0, len(controllerv1.SupportedSchemeReconciler))
	for kind := range controllerv1.SupportedSchemeReconciler {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		if err := controllerv1.SupportedSchemeReconciler[kind](mgr, setupGang, *threads); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", kind, err)
		}
		if *webhookPort == 0 {
			continue
		}
		if setupWebhook, ok := webhooks.SupportedSchemeWebhook[kind]; ok {
			if err := setupWebhook(mgr); err != nil {
				return fmt.Errorf("setting up the %s webhook: %w", kind, err)
			}
		}
	}
	ctrl.Log.Info("starting", "kinds", kinds, "gangScheduler", *gang)
	return mgr.Start(ctrl.SetupSignalHandler())
}
