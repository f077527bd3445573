package argocd

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// SyncWindow is a sync window of an AppProject, as Argo CD reads it.
type SyncWindow struct {
	Kind, Schedule, Duration, TimeZone, Description string
	Applications, Namespaces, Clusters              []string
	ManualSync, UseAndOperator                      bool
}

// cronParser is the parser of SyncWindow.Validate (Argo CD): five
// fields, no seconds, no descriptors such as @daily.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ParseSchedule parses a sync window's schedule as Argo CD does. Where
// robfig/cron would panic (a "TZ=" prefix with nothing after it), it
// returns an error: Argo CD's API server fails the request. The time zone
// of a "TZ=" or "CRON_TZ=" prefix is read as robfig/cron reads it, from
// platc's time zone database (LoadZone), not the host's.
func ParseSchedule(schedule string) (sched cron.Schedule, err error) {
	crashes := func() error { return fmt.Errorf("Argo CD's cron parser crashes on '%s'", schedule) }
	defer func() {
		if recover() != nil {
			sched, err = nil, crashes()
		}
	}()
	if strings.HasPrefix(schedule, "TZ=") || strings.HasPrefix(schedule, "CRON_TZ=") {
		i, eq := strings.Index(schedule, " "), strings.Index(schedule, "=")
		if i < 0 {
			return nil, crashes() // robfig/cron slices at the missing space
		}
		name := schedule[eq+1 : i]
		loc, err := LoadZone(name)
		if err != nil {
			return nil, fmt.Errorf("provided bad location %s: %v", name, err)
		}
		// The zone checked, robfig/cron parses the rest as it would
		// after its own: UTC needs no database.
		sched, err := cronParser.Parse("TZ=UTC " + strings.TrimSpace(schedule[i:]))
		if s, ok := sched.(*cron.SpecSchedule); ok {
			s.Location = loc
		}
		return sched, err
	}
	return cronParser.Parse(schedule)
}

// Validate is SyncWindow.Validate of pkg/apis/application/v1alpha1/types.go
// (Argo CD): the kind, the schedule (robfig/cron with Argo CD's
// parser options), the duration (time.ParseDuration) and the description's
// length, with Argo CD's messages. A time zone that does not load is not an
// error there (Argo CD logs a warning and uses UTC): see TimeZoneProblem.
func (w SyncWindow) Validate() error {
	if w.Kind != "allow" && w.Kind != "deny" {
		return fmt.Errorf("kind '%s' mismatch: can only be allow or deny", w.Kind)
	}
	if _, err := ParseSchedule(w.Schedule); err != nil {
		return fmt.Errorf("cannot parse schedule '%s': %w", w.Schedule, err)
	}
	if _, err := time.ParseDuration(w.Duration); err != nil {
		return fmt.Errorf("cannot parse duration '%s': %w", w.Duration, err)
	}
	if len(w.Description) > 255 {
		return errors.New("description must not exceed 255 characters")
	}
	return nil
}

// TimeZoneProblem says why Argo CD would not use a sync window's time
// zone, or returns "". SyncWindow.Validate (Argo CD) loads it with
// time.LoadLocation (here LoadZone, Go's database as Argo CD embeds it) and, where that fails, logs a warning and uses UTC: the
// window would silently open at another hour.
func (w SyncWindow) TimeZoneProblem() string {
	if w.TimeZone == "" {
		return ""
	}
	if _, err := LoadZone(w.TimeZone); err != nil {
		return fmt.Sprintf("time zone '%s' is not one Argo CD can load, so it would use UTC", w.TimeZone)
	}
	return ""
}

// sameIdentity is SyncWindow.HashIdentity's equality (Argo CD): two
// windows are one where every field but manualSync and the description
// is equal (Argo CD compares xxhash sums of their gob encodings, in which
// an empty list and none are alike).
func (w SyncWindow) sameIdentity(o SyncWindow) bool {
	return w.Kind == o.Kind && w.Schedule == o.Schedule && w.Duration == o.Duration && w.TimeZone == o.TimeZone &&
		w.UseAndOperator == o.UseAndOperator && slices.Equal(w.Applications, o.Applications) &&
		slices.Equal(w.Namespaces, o.Namespaces) && slices.Equal(w.Clusters, o.Clusters)
}

// KeyIDProblem is util/sourceintegrity.KeyID of Argo CD, which the
// argocd CLI applies to a project's signature key: a key ID is 16
// hexadecimal digits, or a fingerprint of 40. Its message, or "".
func KeyIDProblem(k string) string {
	_, err := hex.DecodeString(k)
	if err == nil && (len(k) == 16 || len(k) == 40) {
		return ""
	}
	return fmt.Sprintf("'%s' is not a valid GnuPG key ID", k)
}
