package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/model"
	"github.com/platc/platc/compiler/object"
)

// envProjects are the AppProjects an environment's Applications belong
// to.
type envProjects struct {
	Env      string
	Projects []projectWords
}

// projectWords is an AppProject's permissions in plain words.
type projectWords struct {
	Name, Description string
	// Default says platc renders none: Argo CD's own default project.
	Default bool
	Used    []string // the Applications in it, sorted
	Lines   []permission
}

// permission is one kind of permission and its items.
type permission struct {
	What  string
	Items []string
}

// projects reads the AppProjects render made for envs (the spec's and
// those platc makes for stack instances), as Argo CD reads them
// (argocd.ProjectFromObject), and Argo CD's default project where an
// Application uses it.
func projects(res *compiler.Result, envs []*model.Environment) []envProjects {
	var out []envProjects
	for _, env := range envs {
		rendered := map[string]*object.Map{}
		used := map[string][]string{}
		for _, f := range res.Files {
			if f.Env != env.Name || f.Values {
				continue
			}
			for _, o := range f.Objects {
				name, _ := object.Lookup(o, "metadata", "name").(string)
				switch o.Get("kind") {
				case "AppProject":
					rendered[name] = o
				case "Application":
					if p, ok := object.Lookup(o, "spec", "project").(string); ok {
						used[p] = append(used[p], name)
					}
				}
			}
		}
		// The Applications kro creates for the instances are in the
		// project their instance names.
		for _, inst := range res.Stacks.Instances {
			if inst.Env != env {
				continue
			}
			p, _ := argocd.InstancesProject(env, inst.Client.Stack(inst.Stack.Model.Name), res.Info.Instances[inst.Stack.Model.Name].Name)
			used[p] = append(used[p], fmt.Sprintf("%s's %s (kro creates them)", inst.Client.Name, inst.Stack.Model.Name))
		}
		ep := envProjects{Env: env.Name}
		names := slices.Sorted(maps.Keys(rendered))
		for n := range used {
			if rendered[n] == nil {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		for _, n := range names {
			var pw projectWords
			if o := rendered[n]; o != nil {
				pw = describeProject(argocd.ProjectFromObject(o).Spec())
				pw.Description, _ = object.Lookup(o, "spec", "description").(string)
			} else {
				// Only default can be used and not rendered: check
				// refuses any other unknown project.
				pw = describeProject(argocd.DefaultProject().Spec())
				pw.Default = true
				pw.Description = "Argo CD's default project, as Argo CD creates it: platc renders none."
			}
			pw.Name = n
			pw.Used = slices.Sorted(slices.Values(used[n]))
			ep.Projects = append(ep.Projects, pw)
		}
		out = append(out, ep)
	}
	return out
}

// describeProject says what a project permits.
func describeProject(ps argocd.ProjectSpec) projectWords {
	var pw projectWords
	add := func(what string, items ...string) {
		if len(items) > 0 {
			pw.Lines = append(pw.Lines, permission{What: what, Items: items})
		}
	}
	var repos []string
	for _, r := range ps.SourceRepos {
		repos = append(repos, anyOr(r, "any repository"))
	}
	add("Syncs from", orNothing(repos, "no repository: no Application of it can sync")...)
	var dests []string
	for _, d := range ps.Destinations {
		cluster := d.Server
		if d.Name != "" {
			cluster = "cluster " + d.Name
		}
		dests = append(dests, anyOr(d.Namespace, "any namespace")+" of "+anyOr(cluster, "any cluster"))
	}
	add("Deploys to", orNothing(dests, "no destination: no Application of it can sync")...)
	add("Cluster-scoped kinds it may create", orNothing(kinds(ps.ClusterResourceWhitelist), "none")...)
	add("Cluster-scoped kinds it may never create", kinds(ps.ClusterResourceBlacklist)...)
	switch {
	case ps.NamespaceResourceWhitelist != nil:
		add("Namespaced kinds, only", orNothing(kinds(ps.NamespaceResourceWhitelist), "none")...)
	case len(ps.NamespaceResourceBlacklist) == 0:
		add("Namespaced kinds", "every kind")
	}
	add("Namespaced kinds it may never create", kinds(ps.NamespaceResourceBlacklist)...)
	add("Its Applications may live in the namespaces", ps.SourceNamespaces...)
	var windows []string
	for _, w := range ps.SyncWindows {
		windows = append(windows, windowWords(w))
	}
	add("Sync windows", windows...)
	var roles []string
	for _, r := range ps.Roles {
		roles = append(roles, roleWords(r))
	}
	add("Roles", roles...)
	var accounts []string
	for _, a := range ps.DestinationServiceAccounts {
		accounts = append(accounts, fmt.Sprintf("as service account %s, to %s of %s", a.DefaultServiceAccount, anyOr(a.Namespace, "any namespace"), anyOr(a.Server, "any cluster")))
	}
	add("Argo CD syncs", accounts...)
	add("Commits must be signed by the GnuPG keys", ps.SignatureKeys...)
	return pw
}

func anyOr(s, words string) string {
	if s == "*" {
		return words
	}
	return s
}

func orNothing(items []string, none string) []string {
	if len(items) == 0 {
		return []string{none}
	}
	return items
}

// kinds says which kinds a resource list names: a kind, and its API group
// but for Kubernetes' core group.
func kinds(rules []argocd.ResourceRule) []string {
	var out []string
	for _, r := range rules {
		s := anyOr(r.Kind, "every kind")
		switch r.Group {
		case "":
		case "*":
			if r.Kind != "*" {
				s += " of any API group"
			}
		default:
			s += " (" + r.Group + ")"
		}
		if r.Name != "" {
			s += " named " + r.Name
		}
		out = append(out, s)
	}
	return out
}

// roleWords says what a role's policies permit, and who holds it. A
// policy is "p, proj:<project>:<role>, <resource>, <action>, <object>,
// allow|deny" (check refuses any other).
func roleWords(r argocd.Role) string {
	var may []string
	for _, p := range r.Policies {
		f := strings.Split(p, ",")
		if len(f) != 6 {
			may = append(may, p)
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		resource, action, obj, effect := f[2], f[3], f[4], f[5]
		verb := "may"
		if effect == "deny" {
			verb = "may not"
		}
		if action == "*" {
			action = "do anything to"
		}
		may = append(may, fmt.Sprintf("%s %s %s %s", verb, action, resource, obj))
	}
	s := r.Name + ": " + diag.OrNone(may)
	if len(r.Groups) > 0 {
		s += "; held by " + strings.Join(r.Groups, ", ")
	}
	return s
}

// windowWords says when a sync window lets the project's Applications
// sync, or not.
func windowWords(w argocd.SyncWindow) string {
	var b strings.Builder
	switch w.Kind {
	case "allow":
		b.WriteString("syncs only ")
	default:
		b.WriteString("no syncs ")
	}
	fmt.Fprintf(&b, "for %s from %s, %s time (%s)", durationWords(w.Duration), cronWords(w.Schedule), cmp.Or(w.TimeZone, "UTC"), w.Schedule)
	var scope []string
	for _, l := range []struct {
		what  string
		names []string
	}{{"Applications", w.Applications}, {"namespaces", w.Namespaces}, {"clusters", w.Clusters}} {
		if len(l.names) == 1 && l.names[0] == "*" {
			scope = append(scope, "every one of its "+l.what)
		} else if len(l.names) > 0 {
			scope = append(scope, l.what+" "+strings.Join(l.names, ", "))
		}
	}
	joiner := " or "
	if w.UseAndOperator {
		joiner = " and "
	}
	fmt.Fprintf(&b, ", for %s", strings.Join(scope, joiner))
	if w.ManualSync {
		b.WriteString("; a person may still sync by hand")
	}
	if w.Description != "" {
		fmt.Fprintf(&b, " (%s)", w.Description)
	}
	return b.String()
}

// durationWords says a sync window's duration, in days or hours where it
// is a whole number of them.
func durationWords(s string) string {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return s
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return count{int(d / (24 * time.Hour)), "day"}.String()
	case d >= time.Hour && d%time.Hour == 0:
		return count{int(d / time.Hour), "hour"}.String()
	case d%time.Minute == 0:
		return count{int(d / time.Minute), "minute"}.String()
	}
	return s
}

func (c count) String() string { return strconv.Itoa(c.N) + " " + plural(c.N, c.What) }

var (
	weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	months   = []string{"", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// cronWords says when a five-field cron schedule starts, for the common
// shapes (a fixed minute and hour; every day, some weekdays, or a day of
// the year or month), and "each time the schedule says" otherwise: the
// schedule itself is always shown beside.
func cronWords(s string) string {
	f := strings.Fields(s)
	const other = "each time the schedule says"
	if len(f) != 5 {
		return other
	}
	minute, err1 := strconv.Atoi(f[0])
	hour, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || minute < 0 || minute > 59 || hour < 0 || hour > 23 {
		return other
	}
	at := fmt.Sprintf("%02d:%02d", hour, minute)
	dom, month, dow := f[2], f[3], f[4]
	switch {
	case dom == "*" && month == "*" && dow == "*":
		return at + " every day"
	case dom == "*" && month == "*":
		if days, ok := dayWords(dow); ok {
			return at + " on " + days
		}
	case dow == "*":
		d, err := strconv.Atoi(dom)
		if err != nil || d < 1 || d > 31 {
			break
		}
		if month == "*" {
			return fmt.Sprintf("%s on day %d of every month", at, d)
		}
		if m, err := strconv.Atoi(month); err == nil && m >= 1 && m <= 12 {
			return fmt.Sprintf("%s on %d %s", at, d, months[m])
		}
	}
	return other
}

// dayWords says a cron weekday field: a day, a range, or a list of days.
func dayWords(s string) (string, bool) {
	day := func(s string) (string, bool) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 7 {
			return "", false
		}
		return weekdays[n], true
	}
	if from, to, ok := strings.Cut(s, "-"); ok {
		a, ok1 := day(from)
		b, ok2 := day(to)
		return a + " to " + b, ok1 && ok2
	}
	var days []string
	for _, d := range strings.Split(s, ",") {
		w, ok := day(d)
		if !ok {
			return "", false
		}
		days = append(days, w)
	}
	if len(days) == 1 {
		return days[0] + "s", true
	}
	return diag.List(days), true
}
