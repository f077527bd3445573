package kro

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/kubernetes-sigs/kro/api/v1alpha1"

	"github.com/platc/platc/compiler/diag"
)

// admit validates the RGD as the API server does when it is created, with
// kro's ResourceGraphDefinition CRD (the patterns of spec.schema.kind and
// apiVersion, its required fields), reports what it refuses, and returns
// the RGD as the API server stores it (its defaults applied: group
// kro.run, scope Namespaced) in kro's API types, as kro's controller reads
// it.
func (c *checker) admit(plain map[string]any) (*v1alpha1.ResourceGraphDefinition, error) {
	kd := c.kinds.kind("kro.run/v1alpha1", "ResourceGraphDefinition")
	if kd == nil {
		if emb, err := Embedded(); err == nil {
			kd = emb.kind("kro.run/v1alpha1", "ResourceGraphDefinition")
		}
	}
	if kd != nil {
		stored, probs, err := kd.validate(context.Background(), plain)
		if err != nil {
			c.reportf(diag.IO, -1, "", "kro's ResourceGraphDefinition CRD does not load: %v", err)
		}
		for _, p := range probs {
			c.admission(p)
		}
		plain = stored
	}
	return fromJSON[v1alpha1.ResourceGraphDefinition](plain)
}

var resourcePathRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^spec\.resources\[(\d+)\]\.?(.*)$`) })

// admission places a problem of the RGD's validation against kro's CRD.
func (c *checker) admission(p objectProblem) {
	text := "unknown field"
	if p.err != nil {
		text = fieldErrorText(p.err)
	}
	detail := fmt.Sprintf("kro's ResourceGraphDefinition CRD: %s: %s", p.path, text)
	if m := resourcePathRe().FindStringSubmatch(p.path); m != nil {
		i, _ := strconv.Atoi(m[1])
		if i < len(c.rgd.Resources) {
			c.reportf(diag.KroAPI, i, m[2], "the API server refuses it: %s: change it", detail)
			return
		}
	}
	field, isSchema := strings.CutPrefix(p.path, "spec.schema.")
	switch {
	case isSchema && field == "kind":
		c.add(diag.KroAPI, -1, "kind", kindMessage(c.rgd.Kind, detail))
	case isSchema && field == "apiVersion":
		c.add(diag.KroAPI, -1, "apiVersion", apiVersionMessage(c.rgd.APIVersion, detail))
	case isSchema:
		c.reportf(diag.KroAPI, -1, field, "the API server refuses it: %s: change it", detail)
	default:
		c.reportf(diag.KroAPI, -1, "", "the API server refuses the ResourceGraphDefinition: %s: change it", detail)
	}
}

func apiVersionMessage(v, detail string) string {
	if v == "" {
		return fmt.Sprintf("apiVersion is required: set a version such as v1alpha1 (%s)", detail)
	}
	hint := "use a Kubernetes version such as v1alpha1, v1beta1 or v1"
	if g, ver, ok := strings.Cut(v, "/"); ok && regexp.MustCompile(`^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$`).MatchString(ver) {
		hint = fmt.Sprintf("write only the version, %q, and put the group %q in group", ver, g)
	}
	return fmt.Sprintf("apiVersion %q is not a valid Kubernetes version: %s (%s)", v, hint, detail)
}
