package api

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// CodeComments are the comment lines of code files, each without its //
// and spaces: the doc comments opctl wrote into a style's types, which
// controller-gen writes into a CRD as descriptions.
func CodeComments(files ...[]byte) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, line := range strings.Split(string(f), "\n") {
			if text, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
				out[strings.TrimSpace(text)] = true
			}
		}
	}
	return out
}

// RestoreOwnDescriptions undoes, in version of crd, what opctl's own doc
// comments did to it: a description that is one of ours (CodeComments of
// the types opctl wrote, where a field opctl.yaml leaves undescribed gets
// a comment all the same, as Go wants) becomes the description was, the
// CRD opctl wrote, has at the same place, or none. A description the team
// wrote in the types is none of ours, and stays.
func RestoreOwnDescriptions(crd, was *apiextensionsv1.CustomResourceDefinition, version string, ours map[string]bool) {
	var prev *apiextensionsv1.JSONSchemaProps
	for _, v := range was.Spec.Versions {
		if v.Name == version && v.Schema != nil {
			prev = v.Schema.OpenAPIV3Schema
		}
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			restoreDescriptions(v.Schema.OpenAPIV3Schema, prev, ours)
		}
	}
}

// restoreDescriptions restores the descriptions of s and below from was,
// the same place in the CRD opctl wrote (nil where it has none).
func restoreDescriptions(s, was *apiextensionsv1.JSONSchemaProps, ours map[string]bool) {
	if s.Description != "" && ours[strings.Join(strings.Fields(s.Description), " ")] {
		s.Description = ""
		if was != nil {
			s.Description = was.Description
		}
	}
	for name, p := range s.Properties {
		var wp *apiextensionsv1.JSONSchemaProps
		if was != nil {
			if w, ok := was.Properties[name]; ok {
				wp = &w
			}
		}
		restoreDescriptions(&p, wp, ours)
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		var wp *apiextensionsv1.JSONSchemaProps
		if was != nil && was.Items != nil {
			wp = was.Items.Schema
		}
		restoreDescriptions(s.Items.Schema, wp, ours)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		var wp *apiextensionsv1.JSONSchemaProps
		if was != nil && was.AdditionalProperties != nil {
			wp = was.AdditionalProperties.Schema
		}
		restoreDescriptions(s.AdditionalProperties.Schema, wp, ours)
	}
}
