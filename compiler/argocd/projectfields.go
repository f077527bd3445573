package argocd

import (
	"fmt"
	"strings"

	"github.com/gobwas/glob"

	"github.com/platc/platc/compiler/object"
)

// readProjectFields reads an AppProject's roles, sync windows,
// destination service accounts and signature keys.
func readProjectFields(ps *ProjectSpec, spec any) {
	for _, r := range list(object.Lookup(spec, "roles")) {
		ps.Roles = append(ps.Roles, Role{Name: str(r, "name"), Policies: stringList(object.Lookup(r, "policies")), Groups: stringList(object.Lookup(r, "groups"))})
	}
	for _, w := range list(object.Lookup(spec, "syncWindows")) {
		manual, _ := object.Lookup(w, "manualSync").(bool)
		and, _ := object.Lookup(w, "andOperator").(bool)
		ps.SyncWindows = append(ps.SyncWindows, SyncWindow{
			Kind: str(w, "kind"), Schedule: str(w, "schedule"), Duration: str(w, "duration"), TimeZone: str(w, "timeZone"),
			Description: str(w, "description"), Applications: stringList(object.Lookup(w, "applications")),
			Namespaces: stringList(object.Lookup(w, "namespaces")), Clusters: stringList(object.Lookup(w, "clusters")),
			ManualSync: manual, UseAndOperator: and,
		})
	}
	for _, d := range list(object.Lookup(spec, "destinationServiceAccounts")) {
		ps.DestinationServiceAccounts = append(ps.DestinationServiceAccounts, DestinationServiceAccount{Server: str(d, "server"), Namespace: str(d, "namespace"), DefaultServiceAccount: str(d, "defaultServiceAccount")})
	}
	for _, k := range list(object.Lookup(spec, "signatureKeys")) {
		ps.SignatureKeys = append(ps.SignatureKeys, str(k, "keyID"))
	}
}

// validateProjectFields is the rest of AppProject.ValidateProject
// (pkg/apis/application/v1alpha1/app_project_types.go, Argo CD), in
// its order: roles (names unique and valid; each role's policies and
// groups unique and valid), sync windows (unique, valid, and each for some
// applications, namespaces or clusters) and destination service accounts
// (no "!", a service account, globs that compile, unique). A duplicate sync
// window's message omits the hash Argo CD prints.
func (p *Project) validateProjectFields() []ProjectProblem {
	var out []ProjectProblem
	add := func(field string, i int, sub, format string, args ...any) {
		out = append(out, ProjectProblem{Field: field, Index: i, Sub: sub, Message: fmt.Sprintf(format, args...)})
	}
	roleNames := map[string]bool{}
	for i, role := range p.spec.Roles {
		if roleNames[role.Name] {
			add("roles", i, "name", "role '%s' already exists", role.Name)
			continue
		}
		if msg := RoleNameProblem(role.Name); msg != "" {
			add("roles", i, "name", "%s", msg)
			continue
		}
		policies := map[string]bool{}
		for j, policy := range role.Policies {
			sub := fmt.Sprintf("policies[%d]", j)
			if policies[policy] {
				add("roles", i, sub, "policy '%s' already exists for role '%s'", policy, role.Name)
				continue
			}
			if msg := PolicyProblem(p.Name, role.Name, policy); msg != "" {
				add("roles", i, sub, "%s", msg)
				continue
			}
			policies[policy] = true
		}
		groups := map[string]bool{}
		for j, group := range role.Groups {
			sub := fmt.Sprintf("groups[%d]", j)
			if groups[group] {
				add("roles", i, sub, "group '%s' already exists for role '%s'", group, role.Name)
				continue
			}
			if msg := GroupNameProblem(group); msg != "" {
				add("roles", i, sub, "%s", msg)
				continue
			}
			groups[group] = true
		}
		roleNames[role.Name] = true
	}
	for i, w := range p.spec.SyncWindows {
		dup := false
		for _, earlier := range p.spec.SyncWindows[:i] {
			dup = dup || earlier.sameIdentity(w)
		}
		if dup {
			add("syncWindows", i, "", "sync window with kind '%s', schedule '%s', and duration '%s' already exists", w.Kind, w.Schedule, w.Duration)
			continue
		}
		if err := w.Validate(); err != nil {
			add("syncWindows", i, windowField(err.Error()), "%s", err.Error())
			continue
		}
		if len(w.Applications) == 0 && len(w.Namespaces) == 0 && len(w.Clusters) == 0 {
			add("syncWindows", i, "", "window '%s':'%s':'%s' requires one of application, cluster or namespace", w.Kind, w.Schedule, w.Duration)
		}
	}
	accounts := map[string]bool{}
	for i, d := range p.spec.DestinationServiceAccounts {
		switch {
		case strings.Contains(d.Server, "!"):
			add("destinationServiceAccounts", i, "server", "server has an invalid format, '%s'", d.Server)
			continue
		case strings.Contains(d.Namespace, "!"):
			add("destinationServiceAccounts", i, "namespace", "namespace has an invalid format, '%s'", d.Namespace)
			continue
		case strings.Trim(d.DefaultServiceAccount, " ") == "" || strings.ContainsAny(d.DefaultServiceAccount, serviceAccountDisallowedCharSet):
			add("destinationServiceAccounts", i, "defaultServiceAccount", "defaultServiceAccount has an invalid format, '%s'", d.DefaultServiceAccount)
			continue
		}
		if _, err := glob.Compile(d.Server); err != nil {
			add("destinationServiceAccounts", i, "server", "server has an invalid format, '%s'", d.Server)
			continue
		}
		if _, err := glob.Compile(d.Namespace); err != nil {
			add("destinationServiceAccounts", i, "namespace", "namespace has an invalid format, '%s'", d.Namespace)
			continue
		}
		key := d.Server + "/" + d.Namespace
		if accounts[key] {
			add("destinationServiceAccounts", i, "", "destinationServiceAccount '%s' already added", key)
			continue
		}
		accounts[key] = true
	}
	return out
}

// windowField is the field of a sync window that Validate's message is
// about.
func windowField(msg string) string {
	for _, f := range []struct{ prefix, field string }{{"kind ", "kind"}, {"cannot parse schedule", "schedule"}, {"cannot parse duration", "duration"}, {"description ", "description"}} {
		if strings.HasPrefix(msg, f.prefix) {
			return f.field
		}
	}
	return ""
}
