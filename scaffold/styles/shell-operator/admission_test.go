//go:build e2e

package shelloperator_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
)

// admissionBinding is a kubernetesValidating or kubernetesMutating binding
// of a hook's --config.
type admissionBinding struct {
	Name           string                              `json:"name"`
	Rules          []admissionregv1.RuleWithOperations `json:"rules"`
	FailurePolicy  *admissionregv1.FailurePolicyType   `json:"failurePolicy"`
	SideEffects    *admissionregv1.SideEffectClass     `json:"sideEffects"`
	TimeoutSeconds *int32                              `json:"timeoutSeconds"`
}

// serveAdmissionHooks plays shell-operator v1.20's admission webhooks
// (pkg/webhook/admission): it writes a Validating- and a
// MutatingWebhookConfiguration named <VALIDATING_WEBHOOK_CONFIGURATION_NAME>-hooks
// with one webhook per binding at /hooks/<binding name> (here a URL where
// envtest's options put the server, with their CA), serves HTTPS with the
// certificate, and answers each review by running the binding's hook with
// a binding context of type Validating or Mutating carrying the review and
// reading $VALIDATING_RESPONSE_PATH: allowed, else a 403 status with the
// hook's message; a patch is a JSONPatch; an empty or invalid response
// fails the call.
func serveAdmissionHooks(t *testing.T, dir, kubeconfig string, server *envtest.WebhookInstallOptions) *styletest.Process {
	ctx := context.Background()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)

	hooks, err := filepath.Glob(filepath.Join(dir, "hooks", "*.sh"))
	require.NoError(t, err)
	byID := map[string]admissionHook{} // the binding's name is the webhook's id
	name := p.Name + "-hooks"
	validating := &admissionregv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	mutating := &admissionregv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	equivalent := admissionregv1.Equivalent
	for _, hook := range hooks {
		out, err := exec.Command(hook, "--config").Output()
		require.NoError(t, err, "%s --config", hook)
		var config struct {
			Validating []admissionBinding `json:"kubernetesValidating"`
			Mutating   []admissionBinding `json:"kubernetesMutating"`
		}
		require.NoError(t, json.Unmarshal(out, &config), "%s --config", hook)
		clientConfig := func(id, contextType string) admissionregv1.WebhookClientConfig {
			byID[id] = admissionHook{path: hook, binding: id, contextType: contextType}
			url := fmt.Sprintf("https://%s/hooks/%s", net.JoinHostPort(server.LocalServingHost, fmt.Sprint(server.LocalServingPort)), id)
			return admissionregv1.WebhookClientConfig{URL: &url, CABundle: server.LocalServingCAData}
		}
		for _, b := range config.Validating {
			validating.Webhooks = append(validating.Webhooks, admissionregv1.ValidatingWebhook{Name: b.Name, Rules: b.Rules,
				FailurePolicy: b.FailurePolicy, SideEffects: b.SideEffects, TimeoutSeconds: b.TimeoutSeconds, MatchPolicy: &equivalent,
				AdmissionReviewVersions: []string{"v1", "v1beta1"}, ClientConfig: clientConfig(b.Name, "Validating")})
		}
		for _, b := range config.Mutating {
			mutating.Webhooks = append(mutating.Webhooks, admissionregv1.MutatingWebhook{Name: b.Name, Rules: b.Rules,
				FailurePolicy: b.FailurePolicy, SideEffects: b.SideEffects, TimeoutSeconds: b.TimeoutSeconds, MatchPolicy: &equivalent,
				AdmissionReviewVersions: []string{"v1", "v1beta1"}, ClientConfig: clientConfig(b.Name, "Mutating")})
		}
	}
	require.NotEmpty(t, byID, "no admission binding in the project's hooks")

	cert, err := tls.LoadX509KeyPair(filepath.Join(server.LocalServingCertDir, "tls.crt"), filepath.Join(server.LocalServingCertDir, "tls.key"))
	require.NoError(t, err)
	listener, err := tls.Listen("tcp", net.JoinHostPort(server.LocalServingHost, fmt.Sprint(server.LocalServingPort)),
		&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	require.NoError(t, err)
	var failures []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "Invalid JSON payload", http.StatusBadRequest)
			return
		}
		hook, ok := byID[strings.TrimPrefix(r.URL.Path, "/hooks/")]
		var response *admissionv1.AdmissionResponse
		err := fmt.Errorf("no hook has a binding for %s", r.URL.Path)
		if ok {
			response, err = hook.run(review)
		}
		if err != nil {
			failures = append(failures, err.Error())
			response = &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: http.StatusInternalServerError, Message: err.Error()}}
		}
		response.UID = review.Request.UID
		review.Request, review.Response = nil, response
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	})}
	go func() { _ = srv.Serve(listener) }()

	if len(validating.Webhooks) > 0 {
		require.NoError(t, c.Create(ctx, validating))
	}
	if len(mutating.Webhooks) > 0 {
		require.NoError(t, c.Create(ctx, mutating))
	}
	kill := func() { _ = srv.Close() }
	return styletest.NewProcess(t, kill, func() {
		kill()
		assert.Empty(t, failures, "the admission hooks failed")
	}, nil)
}

// admissionHook is a hook and one of its admission bindings.
type admissionHook struct {
	path, binding string
	contextType   string // Validating or Mutating
}

// run runs the hook for the review as shell-operator does and returns its
// answer.
func (h admissionHook) run(review admissionv1.AdmissionReview) (*admissionv1.AdmissionResponse, error) {
	hook := h.path
	tmp, err := os.MkdirTemp("", "admission-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bindingContext, err := json.Marshal([]map[string]any{{"binding": h.binding, "type": h.contextType, "review": review}})
	if err != nil {
		return nil, err
	}
	contextPath, responsePath := filepath.Join(tmp, "context.json"), filepath.Join(tmp, "response.json")
	if err := os.WriteFile(contextPath, bindingContext, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(hook)
	cmd.Env = append(os.Environ(), "BINDING_CONTEXT_PATH="+contextPath, "VALIDATING_RESPONSE_PATH="+responsePath, "ADMISSION_RESPONSE_PATH="+responsePath)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", filepath.Base(hook), err, out)
	}
	b, err := os.ReadFile(responsePath)
	if err != nil || len(b) == 0 {
		return nil, errors.Join(fmt.Errorf("%s wrote no response", filepath.Base(hook)), err)
	}
	var answer struct {
		Allowed  bool     `json:"allowed"`
		Message  string   `json:"message"`
		Warnings []string `json:"warnings"`
		Patch    []byte   `json:"patch"`
	}
	if err := json.Unmarshal(b, &answer); err != nil {
		return nil, fmt.Errorf("%s: response %s: %w", filepath.Base(hook), b, err)
	}
	response := &admissionv1.AdmissionResponse{Allowed: answer.Allowed, Warnings: answer.Warnings, Patch: answer.Patch}
	if !answer.Allowed {
		response.Result = &metav1.Status{Code: http.StatusForbidden, Message: answer.Message}
	}
	if len(answer.Patch) > 0 {
		jsonPatch := admissionv1.PatchTypeJSONPatch
		response.PatchType = &jsonPatch
	}
	return response, nil
}
