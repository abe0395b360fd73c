package api

import (
	"fmt"
	"strings"
)

// Admission is the admission a kind asks for (opctl create webhook):
// Validate checks objects on create and update, Default fills them in
// before. A style whose runtime serves webhooks runs both in the project's
// code; any other gets a ValidatingAdmissionPolicy, which the API server
// evaluates with CEL and which cannot default.
type Admission struct {
	Validate bool `json:"validate,omitempty"`
	Default  bool `json:"default,omitempty"`
	// Rules are further validations of the policy (styles without
	// webhooks): CEL over object, oldObject and request.
	Rules []Rule `json:"rules,omitempty"`
}

// MaxNameLength is what every style's starter admission check enforces:
// the children carry the name in a label value, which has at most 63
// characters.
const MaxNameLength = 63

// NameTooLong is the message of the starter admission check.
func (a API) NameTooLong() string { return "metadata.name " + a.NameTooLongDetail() }

// NameTooLongDetail is the message after the field's name.
func (a API) NameTooLongDetail() string {
	return fmt.Sprintf("must be at most %d characters: the children of a %s carry it in their app.kubernetes.io/instance label", MaxNameLength, a.Kind)
}

// ValidatePath and MutatePath are the URL paths of the kind's webhooks,
// as controller-runtime derives them from the group, version and kind.
func (a API) ValidatePath(domain string) string { return "/validate-" + a.pathSuffix(domain) }

func (a API) MutatePath(domain string) string { return "/mutate-" + a.pathSuffix(domain) }

func (a API) pathSuffix(domain string) string {
	return strings.ReplaceAll(a.FullGroup(domain), ".", "-") + "-" + a.Version + "-" + a.Singular()
}

// WebhookName names one of the kind's webhooks in its configuration
// (prefix v for validating, m for mutating, as kubebuilder does).
func (a API) WebhookName(domain, prefix string) string {
	return prefix + a.Singular() + "-" + a.Version + "." + a.FullGroup(domain)
}
