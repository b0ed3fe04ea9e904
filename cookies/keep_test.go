package cookies_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"crawler/cookies"
)

// mapKeeper keeps values in a map, committing them when commit is called,
// as a durable frontier does with each commit group.
type mapKeeper struct {
	kept  map[string][]byte
	funcs map[string]func() []byte
}

func (k *mapKeeper) Kept(name string) []byte { return k.kept[name] }

func (k *mapKeeper) Keep(name string, value func() []byte) { k.funcs[name] = value }

// commit keeps the values that changed, and reports how many did.
func (k *mapKeeper) commit() (changed int) {
	for name, f := range k.funcs {
		if b := f(); b != nil {
			k.kept[name] = b
			changed++
		}
	}
	return changed
}

func TestRestore(t *testing.T) {
	k := &mapKeeper{kept: map[string][]byte{}, funcs: map[string]func() []byte{}}
	u, _ := url.Parse("http://example.com/")
	first := &cookies.Jar{}
	if err := first.Restore(k); err != nil {
		t.Fatal(err)
	}
	if n := k.commit(); n != 0 {
		t.Errorf("%d values kept before any cookie", n)
	}
	first.SetCookies(u, []*http.Cookie{{Name: "session", Value: "abc"}})
	if n := k.commit(); n != 1 {
		t.Errorf("%d values kept after a cookie was set; want 1", n)
	}
	first.Cookies(u)
	if n := k.commit(); n != 0 {
		t.Errorf("%d values kept after cookies were only sent; want 0", n)
	}

	// A new process: a new jar, the same keeper.
	second := &cookies.Jar{}
	k.funcs = map[string]func() []byte{}
	if err := second.Restore(k); err != nil {
		t.Fatal(err)
	}
	if got := second.Cookies(u); len(got) != 1 || got[0].Value != "abc" {
		t.Errorf("restored cookies %v; want session=abc", got)
	}

	// Damaged state is an error; a cookie the jar refuses is left out.
	bad := &mapKeeper{kept: map[string][]byte{"crawler/cookies": []byte("{")}, funcs: map[string]func() []byte{}}
	if err := (&cookies.Jar{}).Restore(bad); err == nil || errors.Is(err, cookies.ErrRefused) {
		t.Errorf("Restore of damaged state = %v; want a decoding error", err)
	}
	refused := &mapKeeper{kept: map[string][]byte{"crawler/cookies": []byte(`[{"Name":"x","Value":"1","Domain":"co.uk","Path":"/"}]`)}, funcs: map[string]func() []byte{}}
	if err := (&cookies.Jar{}).Restore(refused); !errors.Is(err, cookies.ErrRefused) {
		t.Errorf("Restore of a public suffix's cookie = %v; want ErrRefused", err)
	}
}
