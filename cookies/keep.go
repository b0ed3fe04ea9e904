package cookies

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Keeper is where a crawl keeps its state across processes, as a durable
// frontier does (frontier.Keeper has these methods): what was kept under
// a name, and a function whose value is kept with each commit (nil: kept
// as it was).
type Keeper interface {
	Kept(name string) []byte
	Keep(name string, value func() []byte)
}

// keptName names the jar's cookies in a Keeper.
const keptName = "crawler/cookies"

// Restore gives j the cookies k kept, and has k keep them with each
// commit in which they changed (see Changes): a crawl resumed from k keeps
// its sessions. A value k kept that does not decode is an error; cookies
// the jar refuses (expired ones are dropped) are left out, which the
// error returned with them says, wrapping ErrRefused.
func (j *Jar) Restore(k Keeper) error {
	var entries []Entry
	if b := k.Kept(keptName); b != nil {
		if err := json.Unmarshal(b, &entries); err != nil {
			return fmt.Errorf("cookies: the kept %s: %w", keptName, err)
		}
	}
	refused := j.Import(entries)
	keptAt := j.Changes()
	k.Keep(keptName, func() []byte {
		if j.Changes() == keptAt {
			return nil
		}
		keptAt = j.Changes()
		b, err := json.Marshal(j.Export())
		if err != nil {
			panic(err) // Entries of strings, bools, numbers and times always encode
		}
		return b
	})
	if refused != nil {
		return errors.Join(ErrRefused, refused)
	}
	return nil
}

// ErrRefused is wrapped by the error of Restore when the jar refused some
// of the cookies kept; the others are in the jar.
var ErrRefused = errors.New("cookies: kept cookies refused")
