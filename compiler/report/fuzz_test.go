package report

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzReadRehearsal: a rehearsal's report (platc report -rehearsal, a
// file a CI run hands over) is read, or refused, without a panic; one
// read is the same read again from its JSON. make test runs the seeds
// (testdata/fuzz); go test -fuzz runs it longer (docs/guide.md, Tests).
func FuzzReadRehearsal(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadRehearsal(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("a report read does not encode: %v", err)
		}
		again, err := ReadRehearsal(b)
		if err != nil {
			t.Fatalf("a report read, encoded, does not read: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("read %+v, then %+v", r, again)
		}
	})
}
