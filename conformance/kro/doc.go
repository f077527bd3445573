// Package conformance compares platc's kro checks with kro's own code
// (github.com/kubernetes-sigs/kro) and the Kubernetes API server's
// (k8s.io/apiextensions-apiserver), on generated cases and on everything
// platc renders. It is a module of its own, so that platc's module does not
// carry kro and Kubernetes; `make conformance` runs it, `make test` does
// not.
//
// The upstream side (upstream.go, world.go) is a cluster without a cluster:
// a World holds the CRDs installed (platc's embedded ones, kro's own
// ResourceGraphDefinition CRD read from kro's module, and the CRDs kro
// generated for the other stacks of a repository). kro's graph builder runs
// with a schema resolver that serves each CRD's OpenAPI v3 as the API
// server builds it (BuildOpenAPIV3) and a static REST mapper. An RGD is
// refused if the API server refuses it against kro's CRD, if kro's
// builder refuses it (feature gates at their defaults), or if the instance
// CRD kro creates is refused (ValidateCustomResourceDefinition), belongs to
// someone else, or has names already taken in its group. An instance is
// refused if the API server's create of it against that CRD fails, with
// kubectl's default strict field validation (an unknown field is an
// error).
//
// The platc side is one file, platc.go: kro.Check over an RGD (kro's own
// graph builder inside platc, over platc's embedded CRDs and platc's ports
// of the API server's checks) and verify over the rendered object
// (PlatcRGD; a warning is not a refusal), and the whole pipeline,
// compiler.Compile on a repository in memory, for instance values
// (PlatcClients: rgd validates each instance with the CRD kro generates).
// What is compared is therefore what platc adds around kro's code: the
// resolver and REST mapper over the embedded CRDs, the admission of the
// RGD, the ported CRD validation and naming checks, the instance
// validation, and the problems platc finds before and after kro's builder.
//
// Families, each of -kro.cases generated cases (5000 by default) from
// fixed seeds, biased to edges:
//
//  1. TestSimpleSchema: SimpleSchema types, markers and custom types.
//  2. TestMeta: resource ids, kinds, groups, apiVersions, references.
//  3. TestCEL: CEL over typed schemas in templates, string templates,
//     includeWhen, readyWhen and status, with kro's and the Kubernetes CEL
//     libraries.
//  4. TestInstances: instance values against the CRD kro generates.
//  5. TestRendered: kro over every RGD of the sample and the positive golden
//     cases, the API server over every instance rendered.
//  6. TestFields: resources of Kubernetes' own kinds (served from their
//     published OpenAPI, builtin.go), forEach collections, externalRefs,
//     readyWhen on resources and collections, status over collections
//     (gen_fields.go, which says what it leaves out and why).
//
// Each family requires that both sides accept or both refuse. A
// disagreement fails the test with one reproducer per class (which side
// refuses, and the refusing side's message with the case's own names
// blanked), shrunk while it stays in its class. sanity_test.go proves the
// comparison can fail: known verdicts of kro, a stub platc side that
// disagrees, and the adapter's liveness.
//
// TestEmbeddedCRDsAreSubsets requires platc's embedded
// ResourceGraphDefinition CRD to be a subset of kro's (testkit/crdsubset).
//
// Not modelled: admission webhooks and policies of a real cluster. Both
// sides run with the cel-go kro requires (v0.31.0; platc requires no later
// one).
package conformance
