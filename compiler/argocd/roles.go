package argocd

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Role is an RBAC role of an AppProject: its name, its Casbin policies and
// the OIDC groups bound to it.
type Role struct {
	Name     string
	Policies []string
	Groups   []string
}

// PolicyProblem says why Argo CD refuses a project role's policy, or
// returns "": validatePolicy of pkg/apis/application/v1alpha1/types.go
// (Argo CD), with its messages. A policy is
// "p, proj:<project>:<role>, <resource>, <action>, <project>/<object>, <allow|deny>".
func PolicyProblem(project, role, policy string) string {
	policyComponents := strings.Split(policy, ",")
	if len(policyComponents) != 6 || strings.Trim(policyComponents[0], " ") != "p" {
		return fmt.Sprintf("invalid policy rule '%s': must be of the form: 'p, sub, res, act, obj, eft'", policy)
	}
	subject := strings.Trim(policyComponents[1], " ")
	expectedSubject := fmt.Sprintf("proj:%s:%s", project, role)
	if subject != expectedSubject {
		return fmt.Sprintf("invalid policy rule '%s': policy subject must be: '%s', not '%s'", policy, expectedSubject, subject)
	}
	resource := strings.Trim(policyComponents[2], " ")
	if !projectScoped[resource] {
		return fmt.Sprintf("invalid policy rule '%s': project resource must be: 'applications', 'applicationsets', 'repositories', 'exec', 'logs' or 'clusters', not '%s'", policy, resource)
	}
	action := strings.Trim(policyComponents[3], " ")
	if !isValidAction(action) {
		return fmt.Sprintf("invalid policy rule '%s': invalid action '%s'", policy, action)
	}
	object := strings.Trim(policyComponents[4], " ")
	if !isValidObject(project, object) {
		return fmt.Sprintf("invalid policy rule '%s': object must be of form '%s/*', '%s[/<NAMESPACE>]/<APPNAME>' or '%s/<APPNAME>', not '%s'", policy, project, project, project, object)
	}
	effect := strings.Trim(policyComponents[5], " ")
	if effect != "allow" && effect != "deny" {
		return fmt.Sprintf("invalid policy rule '%s': effect must be: 'allow' or 'deny'", policy)
	}
	return ""
}

// projectScoped is util/rbac.ProjectScoped (Argo CD): the resources
// a project role's policy may name. Read-only.
var projectScoped = map[string]bool{
	"applications": true, "applicationsets": true, "logs": true, "exec": true, "clusters": true, "repositories": true,
}

// validActions and validActionPatterns are types.go's (Argo CD):
// util/rbac's get, create, update, delete, sync, override, rollback (since
// Argo CD 3.6) and "*", and
// action/..., update/..., delete/.... Read-only.
var (
	validActions = map[string]bool{
		"get": true, "create": true, "update": true, "delete": true, "sync": true, "override": true, "rollback": true, "*": true,
	}
	validActionPatterns = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile("action/.*"),
			regexp.MustCompile("update/.*"),
			regexp.MustCompile("delete/.*"),
		}
	})
)

// isValidAction is types.go's (Argo CD); the patterns are not
// anchored, as upstream's are not.
func isValidAction(action string) bool {
	if validActions[action] {
		return true
	}
	for _, p := range validActionPatterns() {
		if p.MatchString(action) {
			return true
		}
	}
	return false
}

// isValidObject is types.go's (Argo CD): the object is
// <project>[/<namespace>]/<application>.
func isValidObject(project, object string) bool {
	objectRegexp, err := regexp.Compile(fmt.Sprintf(`^%s(/[*\w-.]+)?/[*\w-.]+$`, regexp.QuoteMeta(project)))
	return err == nil && objectRegexp.MatchString(object)
}

// roleNameRegexp is types.go's (Argo CD).
var roleNameRegexp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9]([-_a-zA-Z0-9]*[a-zA-Z0-9])?$`) })

// RoleNameProblem is types.go's validateRoleName (Argo CD): its
// message, or "".
func RoleNameProblem(name string) string {
	if !roleNameRegexp().MatchString(name) {
		return fmt.Sprintf("invalid role name '%s'. Must consist of alphanumeric characters, '-' or '_', and must start and end with an alphanumeric character", name)
	}
	return ""
}

// invalidGroupChars is types.go's invalidChars (Argo CD).
var invalidGroupChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("[\"\n\r\t]") })

// GroupNameProblem is types.go's validateGroupName (Argo CD): its
// message, or "". A group with a comma must be quoted, as Casbin's CSV
// reads it.
func GroupNameProblem(name string) string {
	n := []rune(name)
	name = strings.TrimSpace(name)
	if len(name) > 1 && strings.HasPrefix(name, "\"") && strings.HasSuffix(name, "\"") {
		name = name[1 : len(name)-1]
	} else if strings.Contains(name, ",") {
		return fmt.Sprintf("group '%s' must be quoted", name)
	}
	switch {
	case name == "":
		return fmt.Sprintf("group '%s' is empty", name)
	case invalidGroupChars().MatchString(name):
		return fmt.Sprintf("group '%s' contains invalid characters", name)
	case len(n) > 1 && unicode.IsSpace(n[0]):
		return fmt.Sprintf("group '%s' contains a leading space", name)
	case len(n) > 1 && unicode.IsSpace(n[len(n)-1]):
		return fmt.Sprintf("group '%s' contains a trailing space", name)
	}
	return ""
}
