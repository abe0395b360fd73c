// Package render makes a project's files in memory, from its model and its
// style: the CRDs, samples and conformance cases of its kinds, the
// manifests (RBAC, the manager's Deployment, admission, metrics), the Helm
// chart and OLM bundle, CI, the e2e scripts, the project file and lock, and
// the style's own files. It holds the reference of the starter behaviour
// (the children and status a resource should have) that every style's code
// is checked against.
package render
