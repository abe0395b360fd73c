package golang

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/api"
)

// Every child kind opctl offers has the package kubebuilder's projects
// import it from, or none when client-go has no type for it.
func TestGoPackage(t *testing.T) {
	want := map[string]string{
		"ConfigMap": "corev1", "Secret": "corev1", "Service": "corev1",
		"Deployment": "appsv1", "StatefulSet": "appsv1",
		"Job": "batchv1", "CronJob": "batchv1",
		"PodDisruptionBudget": "policyv1", "NetworkPolicy": "networkingv1", "Ingress": "networkingv1",
		"HorizontalPodAutoscaler": "autoscalingv2",
		"ServiceMonitor":          "",
	}
	for _, name := range api.ChildKindNames() {
		c, ok := api.LookupChildKind(name)
		require.True(t, ok, name)
		expected, known := want[name]
		require.True(t, known, "%s: a child kind this test does not know yet: say which package it is in", name)
		assert.Equal(t, expected, goPackage(c), name)
	}
}
