package argocd

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Kubernetes' rules for the keys and values of labels and annotations, as
// the API server applies them to an Application's metadata, a managed
// namespace's and every object kustomize labels: k8s.io/apimachinery v0.36's
// pkg/api/validate/content (IsLabelKey, IsLabelValue) and
// pkg/api/validation.ValidateAnnotations, ported, proven against
// apimachinery by the conformance module.

var (
	labelKeyName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`) })
	labelValue   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`) })
)

// LabelKeyProblem says why key is not a label key (what Kubernetes calls
// a qualified name: an optional DNS subdomain prefix and "/", then a name
// of at most 63 characters), or returns "".
func LabelKeyProblem(key string) string {
	parts := strings.Split(key, "/")
	name := parts[0]
	switch len(parts) {
	case 1:
	case 2:
		prefix := parts[0]
		name = parts[1]
		if !IsDNSSubdomain(prefix) {
			return fmt.Sprintf("%q has a prefix that is not a DNS subdomain (lower-case letters, digits, '-' and '.')", key)
		}
	default:
		return fmt.Sprintf("%q has more than one \"/\": write an optional DNS subdomain prefix, \"/\" and a name", key)
	}
	if len(name) > 63 || !labelKeyName().MatchString(name) {
		return fmt.Sprintf("%q is not a label key: its name must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", key)
	}
	return ""
}

// AnnotationKeyProblem is LabelKeyProblem with case ignored, as
// ValidateAnnotations reads keys.
func AnnotationKeyProblem(key string) string {
	if LabelKeyProblem(strings.ToLower(key)) != "" {
		return fmt.Sprintf("%q is not an annotation key: write an optional DNS subdomain prefix and \"/\", then a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", key)
	}
	return ""
}

// LabelValueProblem says why v is not a label value (empty, or at most 63
// letters, digits, '-', '_' or '.', starting and ending with a letter or
// digit), or returns "".
func LabelValueProblem(v string) string {
	if len(v) > 63 || !labelValue().MatchString(v) {
		return fmt.Sprintf("%q is not a label value: use at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", v)
	}
	return ""
}

// AnnotationsSizeLimit is TotalAnnotationSizeLimitB of apimachinery: the
// keys and values of an object's annotations together.
const AnnotationsSizeLimit = 256 * 1024
