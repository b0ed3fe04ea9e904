package cookies

import (
	"errors"

	"crawler/frontier"
)

// keptName names the jar's cookies in a Keeper.
const keptName = "crawler/cookies"

// Restore gives j the cookies k kept, and has k keep them with each
// commit in which they changed (see Changes): a crawl resumed from k keeps
// its sessions. A value k kept that does not decode is an error; cookies
// the jar refuses (expired ones are dropped) are left out, which the
// error returned with them says, wrapping ErrRefused.
func (j *Jar) Restore(k frontier.Keeper) error {
	var entries []Entry
	if _, err := frontier.KeptJSON(k, keptName, &entries); err != nil {
		return err
	}
	refused := j.Import(entries)
	frontier.KeepJSON(k, keptName, j.Changes(), j.Changes, j.Export)
	if refused != nil {
		return errors.Join(ErrRefused, refused)
	}
	return nil
}

// ErrRefused is wrapped by the error of Restore when the jar refused some
// of the cookies kept; the others are in the jar.
var ErrRefused = errors.New("cookies: kept cookies refused")
