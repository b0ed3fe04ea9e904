package frontier

import (
	"encoding/json"
	"fmt"
)

// KeptJSON decodes into v the JSON value k kept under name, and reports
// whether k kept one. A value that does not decode is an error: the
// crawl's state is damaged, and guessing would crawl wrong.
func KeptJSON(k Keeper, name string, v any) (found bool, err error) {
	b := k.Kept(name)
	if b == nil {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("crawler: the frontier's kept %s: %w", name, err)
	}
	return true, nil
}

// KeepJSON has k keep under name the JSON encoding of what value returns,
// with each commit in which version returns another number than the last
// kept (kept, at first); a nil version keeps it with every commit. value's
// result must encode (a panic says which name did not).
func KeepJSON[T any](k Keeper, name string, kept uint64, version func() uint64, value func() T) {
	k.Keep(name, func() []byte {
		if version != nil {
			v := version()
			if v == kept {
				return nil
			}
			kept = v
		}
		b, err := json.Marshal(value())
		if err != nil {
			panic(fmt.Sprintf("frontier: the value kept under %s does not encode: %v", name, err))
		}
		return b
	})
}
