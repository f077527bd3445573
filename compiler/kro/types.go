package kro

import (
	"fmt"

	"github.com/google/cel-go/cel"
	krocel "github.com/kubernetes-sigs/kro/pkg/cel"
	"github.com/kubernetes-sigs/kro/pkg/graph/fieldpath"
	kroschema "github.com/kubernetes-sigs/kro/pkg/graph/schema"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// typeContext derives the CEL type a template field expects, as kro's
// builder does. The functions below are ported from kro
// pkg/graph/builder.go and build_context.go (expectedTypeForField with
// resolveSchemaAndTypeName and celTypeFromSchema, lookupSchemaAtField,
// schemaDeclType, validateExpressionType), which kro does not export.
type typeContext struct {
	provider  *krocel.DeclTypeProvider
	cache     *kroschema.Cache
	declTypes map[*spec.Schema]*apiservercel.DeclType
}

// expectedType is the CEL type of the field at kro's path in a resource
// of schema root; dyn where the path leads nowhere.
func (tc *typeContext) expectedType(path string, root *spec.Schema, resourceID string) *cel.Type {
	segments, err := fieldpath.Parse(path)
	if err != nil {
		return cel.DynType
	}
	typeName := krocel.TypeNamePrefix + resourceID
	s := root
	for _, seg := range segments {
		if seg.Name != "" {
			typeName = typeName + "." + seg.Name
			if s = tc.lookupSchemaAtField(s, seg.Name); s == nil {
				return cel.DynType
			}
		}
		if seg.Index != -1 {
			if s.Items == nil || s.Items.Schema == nil {
				return cel.DynType
			}
			s = s.Items.Schema
			typeName = typeName + ".@idx"
		}
	}
	if declType, found := tc.provider.FindDeclType(typeName); found {
		return declType.CelType()
	}
	declType := tc.schemaDeclType(s)
	if declType == nil {
		return cel.DynType
	}
	return declType.MaybeAssignTypeName(typeName).CelType()
}

func (tc *typeContext) lookupSchemaAtField(s *spec.Schema, field string) *spec.Schema {
	if s == nil || field == "" {
		return s
	}
	if result := tc.cache.LookupField(s, field); result != nil {
		return result
	}
	if result := tc.cache.LookupAdditionalProperties(s); result != nil {
		return result
	}
	if s.Items != nil && s.Items.Schema != nil {
		return tc.lookupSchemaAtField(s.Items.Schema, field)
	}
	return nil
}

func (tc *typeContext) schemaDeclType(s *spec.Schema) *apiservercel.DeclType {
	if s == nil {
		return nil
	}
	if dt, ok := tc.declTypes[s]; ok {
		return dt
	}
	dt := krocel.SchemaDeclTypeWithMetadata(&openapi.Schema{Schema: s}, false)
	tc.declTypes[s] = dt
	return dt
}

// validateExpressionType reports whether an expression's type fits its
// field's, nominally or structurally, as kro's builder does.
func validateExpressionType(outputType, expectedType *cel.Type, expression, resourceID, path string, provider *krocel.DeclTypeProvider) error {
	if expectedType.IsAssignableType(outputType) {
		return nil
	}
	compatible, compatErr := krocel.AreTypesStructurallyCompatible(outputType, expectedType, provider)
	if compatible {
		return nil
	}
	if compatErr != nil {
		return fmt.Errorf("type mismatch in resource %q at path %q: expression %q returns type %q but expected %q: %w",
			resourceID, path, expression, outputType.String(), expectedType.String(), compatErr)
	}
	return fmt.Errorf("type mismatch in resource %q at path %q: expression %q returns type %q but expected %q",
		resourceID, path, expression, outputType.String(), expectedType.String())
}
