package cookies_test

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"crawler/cookies"
)

// FuzzReadNetscape: ReadNetscape does not panic; what it reads, written
// by WriteNetscape and read again, is the same; and a jar takes it
// without a panic, within its bounds. Corpus: f.Add below and
// testdata/fuzz/FuzzReadNetscape.
func FuzzReadNetscape(f *testing.F) {
	if b, err := os.ReadFile("testdata/curl-cookies.txt"); err == nil {
		f.Add(string(b))
	}
	f.Add("#HttpOnly_.a.test\tTRUE\t/\tTRUE\t0\tn\tv\n")
	f.Add("a.test\tFALSE\t/p\tFALSE\t9223372036854775807\tn\n")
	f.Add("co.uk\tTRUE\t/\tFALSE\t1\tps\tv\r\n")
	f.Add("\n\n# comment\n\t\t\t\t\t\t\n")
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 1<<16 {
			return
		}
		got, err := cookies.ReadNetscape(strings.NewReader(in))
		if err != nil {
			if got != nil || !strings.HasPrefix(err.Error(), "cookies.txt line ") {
				t.Fatalf("error %q with %d entries", err, len(got))
			}
			return
		}
		var buf bytes.Buffer
		if err := cookies.WriteNetscape(&buf, got); err != nil {
			t.Fatal(err)
		}
		again, err := cookies.ReadNetscape(&buf)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("read %+v; written and read again: %+v, %v", got, again, err)
		}
		j := &cookies.Jar{Limits: cookies.Limits{PerSite: 3, Total: 5}}
		j.Import(got) // refusals are errors, not failures
		if j.Len() > 5 {
			t.Fatalf("Len %d above Total 5", j.Len())
		}
	})
}
