package store_test

import (
	"errors"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
)

// A user id in another Unicode form than NFC is refused; NormalizeUser makes the two
// spellings of "José" one id.
func TestUserNFC(t *testing.T) {
	nfd, nfc := "Jose\u0301", "Jos\u00e9"
	if err := store.ValidateUser(nfd); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("NFD user id accepted: %v", err)
	}
	if err := store.ValidateUser(nfc); err != nil {
		t.Errorf("NFC user id refused: %v", err)
	}
	if got := store.NormalizeUser(nfd); got != nfc {
		t.Errorf("NormalizeUser(%q) = %q, want %q", nfd, got, nfc)
	}
}
