// Package api is the model of a kind, the single source of truth every file
// of a project is derived from: its group, version and names, its spec and
// status fields (each of a type in one table that gives its schema, sample
// and rules), its CEL rules, owned kinds, access, admission and older
// versions. It checks a kind by the rules of Kubernetes, Go and the CRD
// schema, builds the kind's CRD and a sample that the CRD accepts, and
// edits a kind (fields, renames, a new version). It knows nothing of
// projects, styles or files.
package api
