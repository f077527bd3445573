// Package conformance checks platc's compiler/argocd against Argo CD's own
// code (github.com/argoproj/argo-cd/v3 at the version platc targets): on
// thousands of generated cases per rule family, both must agree, and Argo
// CD's rules must accept everything platc renders. Argo CD's CRDs (read
// from its module) must admit every Application and AppProject platc
// renders, and contain the ones platc embeds. It is a module of its
// own, so that platc's module does not carry Argo CD's dependencies; `make
// conformance` runs it.
//
// It has no code outside its tests.
package conformance
