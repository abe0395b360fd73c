//go:build e2e

package styletest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// ConversionPort is where a runtime serves the conversion webhook in
// CheckConversion: the API server calls a Service of type ExternalName
// (localhost) at the port the CRD names, 443.
const ConversionPort = 443

// CheckConversion gives the seed's Database a v2 renaming engine to flavor
// and removing version (which has no default), and runs the project in its
// real runtime, serving the conversion webhook on 127.0.0.1:443 behind the
// Service the CRD names (an ExternalName of localhost, as the API server
// resolves one), with a certificate for the Service's name: an object
// created as v1 reads back as v2 renamed, without version, which an
// annotation keeps, and as v1 unchanged. A runtime that points the CRD at itself (shell-operator)
// must set the CRD's CA itself; for any other the test sets it, as
// cert-manager's CA injector would.
func CheckConversion(t *testing.T, cluster *Cluster, style scaffold.Style, start RealRuntime, suite *Conformance) {
	suite.Check(t, "a v1 object reads back as v2 with its field renamed and a removed one in an annotation, through the runtime's conversion webhook, and as v1 unchanged", func(t *testing.T) {
		if l, err := net.Listen("tcp", "127.0.0.1:443"); err != nil {
			t.Fatalf("the conversion webhook is served on 127.0.0.1:443, where the API server calls the Service's ExternalName: %v (run as root, or let this user bind port 443)", err)
		} else {
			require.NoError(t, l.Close())
		}
		ctx := context.Background()
		c := cluster.Client
		dir := Seed(t, style)
		MustRun(t, dir, "edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=flavor", "--remove-field", "version")
		p, crdPath, kubeconfig := cluster.installProject(t, dir)
		crd := ReadObjects(t, crdPath)[0]
		service, _, _ := unstructured.NestedMap(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service")
		require.NotNil(t, service, "the CRD has no conversion webhook Service")
		name, namespace := service["name"].(string), service["namespace"].(string)
		svc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": name, "namespace": namespace},
			"spec":     map[string]any{"type": "ExternalName", "externalName": "localhost", "ports": []any{map[string]any{"port": int64(ConversionPort)}}}}}
		require.NoError(t, c.Create(ctx, svc))
		t.Cleanup(func() { assert.NoError(t, c.Delete(ctx, svc)) })
		ca := writeServingCert(t, name+"."+namespace+".svc")
		cluster.ConversionCerts = filepath.Dir(ca)
		t.Cleanup(func() { cluster.ConversionCerts = "" })
		rt := style.Runtime(p)
		if rt.Conversion.Own == nil || !rt.Conversion.Own.Registers {
			b, err := os.ReadFile(ca)
			require.NoError(t, err)
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(crd), crd))
			require.NoError(t, unstructured.SetNestedField(crd.Object, base64.StdEncoding.EncodeToString(b), "spec", "conversion", "webhook", "clientConfig", "caBundle"))
			require.NoError(t, c.Update(ctx, crd))
		}
		ns := "conv-" + style.Name
		cluster.CreateNamespace(t, ns, false)
		suite.Runs(start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster))

		var sample struct {
			Object map[string]any `json:"object"`
		}
		b, err := os.ReadFile(filepath.Join(dir, render.ConformanceDir, "database", "v1", "sample.yaml"))
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(b, &sample))
		obj := &unstructured.Unstructured{Object: sample.Object}
		obj.SetNamespace(ns)
		obj.SetUID("")
		obj.SetGeneration(0)
		spec := obj.DeepCopy().Object["spec"]
		// Created once the webhook answers: the API server converts it to
		// v2, the storage version, on the way in.
		WaitFor(t, "the conversion webhook to take a v1 object", func() (bool, error) {
			return c.Create(ctx, obj.DeepCopy()) == nil, nil
		})
		v2 := &unstructured.Unstructured{}
		v2.SetAPIVersion("myapp.example.com/v2")
		v2.SetKind("Database")
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(obj), v2))
		flavor, _, _ := unstructured.NestedString(v2.Object, "spec", "flavor")
		assert.Equal(t, spec.(map[string]any)["engine"], flavor, "read as v2, spec.flavor holds v1's spec.engine")
		_, hasEngine, _ := unstructured.NestedFieldNoCopy(v2.Object, "spec", "engine")
		assert.False(t, hasEngine, "read as v2, the spec has no engine")
		_, hasVersion, _ := unstructured.NestedFieldNoCopy(v2.Object, "spec", "version")
		assert.False(t, hasVersion, "read as v2, the spec has no version")
		kept, err := json.Marshal(map[string]any{"version": spec.(map[string]any)["version"]})
		require.NoError(t, err)
		assert.JSONEq(t, string(kept), v2.GetAnnotations()["myapp.example.com/removed-in-v2"], "read as v2, the annotation keeps v1's spec.version")
		v1 := &unstructured.Unstructured{}
		v1.SetAPIVersion("myapp.example.com/v1")
		v1.SetKind("Database")
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(obj), v1))
		want, err := json.Marshal(spec)
		require.NoError(t, err)
		got, err := json.Marshal(v1.Object["spec"])
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "read back as v1, the spec is as created")
	})
}

// writeServingCert writes a CA and a serving certificate for host, signed
// by it, as tls.crt, tls.key and ca.crt in a new directory, and returns
// the path of ca.crt.
func writeServingCert(t *testing.T, host string) string {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	caTemplate := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "opctl test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	template := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, template, caTemplate, &key.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	for file, block := range map[string]*pem.Block{
		"ca.crt":  {Type: "CERTIFICATE", Bytes: caDER},
		"tls.crt": {Type: "CERTIFICATE", Bytes: der},
		"tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), pem.EncodeToMemory(block), 0o600))
	}
	return filepath.Join(dir, "ca.crt")
}
