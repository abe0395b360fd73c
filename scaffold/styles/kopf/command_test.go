package kopf

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/scaffold"
)

// The Deployment runs kopf on every namespace, or on its own; the image's
// CMD, which no Kubernetes expands, reads the namespace with a shell and
// stops when it is not set.
func TestCommand(t *testing.T) {
	cluster := scaffold.Project{Name: "db-operator"}
	assert.Equal(t, []string{"kopf", "run", "--standalone", "--all-namespaces", "--liveness=http://0.0.0.0:8080/healthz", "-m", "db_operator.operator"}, command(cluster))
	assert.Equal(t, command(cluster), imageCommand(cluster))

	scoped := scaffold.Project{Name: "db-operator", Scope: scaffold.ScopeNamespace}
	assert.Equal(t, []string{"kopf", "run", "--standalone", "--namespace=$(WATCH_NAMESPACE)", "--liveness=http://0.0.0.0:8080/healthz", "-m", "db_operator.operator"}, command(scoped))
	assert.Equal(t, []string{"/bin/sh", "-c", "exec kopf run --standalone --namespace=${WATCH_NAMESPACE:?is not set: the operator watches one namespace} --liveness=http://0.0.0.0:8080/healthz -m db_operator.operator"}, imageCommand(scoped))
}
