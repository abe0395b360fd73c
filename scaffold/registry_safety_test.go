package scaffold_test

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// TestSafeOutput walks every file of every golden case and checks what
// opctl promises about the operators it emits: least privilege, hardened
// containers, pinned images, strict shell scripts.
func TestSafeOutput(t *testing.T) {
	t.Parallel()
	for name, c := range goldenCases(t) {
		p, style := c.project, c.style
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree := c.render(t)
			for _, f := range tree.Files() {
				switch {
				case strings.HasPrefix(f.Path, "config/") && strings.HasSuffix(f.Path, ".yaml"):
					for _, doc := range bytes.Split(f.Content, []byte("\n---\n")) {
						var obj map[string]any
						require.NoError(t, yaml.Unmarshal(doc, &obj), f.Path)
						checkObject(t, p, style, f.Path, obj)
					}
				case strings.HasSuffix(f.Path, "Dockerfile"):
					for _, line := range strings.Split(string(f.Content), "\n") {
						if from, ok := strings.CutPrefix(line, "FROM "); ok {
							fields := strings.Fields(from)
							if strings.HasPrefix(fields[0], "--platform=") {
								fields = fields[1:]
							}
							assert.True(t, pinned(fields[0]), "%s: %s is not pinned", f.Path, line)
						}
						if strings.HasPrefix(line, "USER ") {
							assert.NotContains(t, line, "root", f.Path)
						}
					}
					assert.Contains(t, string(f.Content), "\nUSER ", "%s runs as root", f.Path)
				case f.Path == render.DevContainerPath:
					var dev struct{ Image string }
					require.NoError(t, json.Unmarshal(f.Content, &dev), f.Path)
					assert.True(t, pinned(dev.Image), "%s: image %s is not pinned", f.Path, dev.Image)
				case strings.HasSuffix(f.Path, ".sh"):
					lines := strings.SplitN(string(f.Content), "\n", 20)
					assert.Equal(t, "#!/usr/bin/env bash", lines[0], f.Path)
					assert.Contains(t, string(f.Content), "\nset -euo pipefail\n", "%s must stop on errors", f.Path)
				}
			}
			assert.True(t, pinned(p.Versions.ChildImage))
		})
	}
}

// pinned reports whether an image reference names a tag other than latest
// (or a digest).
func pinned(image string) bool {
	if image == "" || strings.ContainsAny(image, " \t") {
		return false
	}
	slash := strings.LastIndex(image, "/")
	rest := image[slash+1:]
	return (strings.Contains(rest, ":") && !strings.HasSuffix(rest, ":latest")) || strings.Contains(image, "@sha256:")
}

func checkObject(t *testing.T, p scaffold.Project, style scaffold.Style, path string, obj map[string]any) {
	kind, _ := obj["kind"].(string)
	switch kind {
	case "ClusterRole", "Role":
		rules, _ := obj["rules"].([]any)
		statusGranted := false
		for _, r := range rules {
			rule := r.(map[string]any)
			for _, key := range []string{"apiGroups", "resources", "nonResourceURLs", "verbs"} {
				values, _ := rule[key].([]any)
				for _, v := range values {
					assert.NotEqual(t, "*", v, "%s: wildcard in %s", path, key)
				}
			}
			resources, _ := rule["resources"].([]any)
			for _, res := range resources {
				statusGranted = statusGranted || strings.HasSuffix(res.(string), "/status")
			}
		}
		// The kind's rules are the ClusterRole's, or in a namespace-scoped
		// project the Role's (there is one Role there).
		kindRole := "ClusterRole"
		if p.NamespaceScoped() {
			kindRole = "Role"
		}
		if path == "config/rbac/role.yaml" && kind == kindRole && len(style.Access.Status) > 0 && len(p.APIs) > 0 {
			assert.True(t, statusGranted, "%s: the operator writes status but may not", path)
		}
	case "Deployment":
		spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		podSC, _ := spec["securityContext"].(map[string]any)
		assert.Equal(t, true, podSC["runAsNonRoot"], path)
		assert.Equal(t, "RuntimeDefault", podSC["seccompProfile"].(map[string]any)["type"], path)
		for _, c := range spec["containers"].([]any) {
			container := c.(map[string]any)
			sc := container["securityContext"].(map[string]any)
			assert.Equal(t, false, sc["allowPrivilegeEscalation"], path)
			assert.Equal(t, true, sc["readOnlyRootFilesystem"], path)
			assert.Equal(t, []any{"ALL"}, sc["capabilities"].(map[string]any)["drop"], path)
			resources := container["resources"].(map[string]any)
			assert.NotEmpty(t, resources["requests"], path)
			assert.NotEmpty(t, resources["limits"], path)
			assert.True(t, pinned(container["image"].(string)), "%s: image %s", path, container["image"])
			assert.NotNil(t, container["livenessProbe"], path)
			assert.NotNil(t, container["readinessProbe"], path)
		}
	}
}

func TestPinned(t *testing.T) {
	t.Parallel()
	for image, want := range map[string]bool{
		"busybox:1.37.0": true, "ghcr.io/flant/shell-operator:v1.20.3": true, "localhost:5000/x:v1": true,
		"busybox": false, "busybox:latest": false, "localhost:5000/x": false,
		"x@sha256:" + strings.Repeat("a", 64): true,
	} {
		assert.Equal(t, want, pinned(image), image)
	}
}

// imageHome is $HOME in the base images whose Dockerfiles use it
// (quay.io/operator-framework/ansible-operator sets HOME=/opt/ansible).
func imageHome(image string) string {
	if strings.HasPrefix(image, "quay.io/operator-framework/ansible-operator:") {
		return "/opt/ansible"
	}
	return ""
}

// TestScratchMountsHideNothingTheImageShips checks that no writable emptyDir
// of the manager Deployment is mounted over what the style's Dockerfile puts
// into the image (COPY destinations, collections ansible-galaxy installs):
// the container would start without them.
func TestScratchMountsHideNothingTheImageShips(t *testing.T) {
	t.Parallel()
	for name, c := range goldenCases(t) {
		if !strings.HasSuffix(name, "-seed") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree := c.render(t)
			dockerfile, ok := tree.Get("Dockerfile")
			if !ok {
				t.Skip("no Dockerfile")
			}
			var shipped []string
			workdir, home := "/", ""
			for _, line := range strings.Split(string(dockerfile.Content), "\n") {
				fields := strings.Fields(strings.ReplaceAll(line, "${HOME}", home))
				switch {
				case len(fields) >= 2 && fields[0] == "FROM":
					home = imageHome(fields[1])
				case len(fields) >= 2 && fields[0] == "WORKDIR":
					workdir = fields[1]
				case len(fields) >= 3 && fields[0] == "COPY":
					dest := fields[len(fields)-1]
					if !strings.HasPrefix(dest, "/") {
						dest = path.Join(workdir, dest)
					}
					shipped = append(shipped, path.Clean(dest))
				case strings.Contains(line, "ansible-galaxy collection install"):
					shipped = append(shipped, home+"/.ansible/collections")
				}
			}
			require.NotEmpty(t, shipped, "no COPY in the Dockerfile")
			manager, ok := tree.Get("config/manager/manager.yaml")
			require.True(t, ok)
			for _, doc := range strings.Split(string(manager.Content), "\n---\n") {
				var d appsv1.Deployment
				require.NoError(t, yaml.Unmarshal([]byte(doc), &d))
				for _, c := range d.Spec.Template.Spec.Containers {
					for _, m := range c.VolumeMounts {
						for _, s := range shipped {
							assert.False(t, s == m.MountPath || strings.HasPrefix(s, m.MountPath+"/"),
								"the scratch mount %s hides %s, which the image ships", m.MountPath, s)
						}
					}
				}
			}
		})
	}
}
