package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// store keeps volumes and snapshots as directories:
//
//	<state>/volumes/<id>/data        the volume's files (what a pod mounts)
//	<state>/volumes/<id>/meta.json   name and capacity
//	<state>/snapshots/<id>/data      a copy of the source volume's files at snapshot time
//	<state>/snapshots/<id>/meta.json name, source volume, size, creation time
//
// IDs derive from the names the sidecars send, so a retried CreateVolume/CreateSnapshot finds what
// the first call made (CSI requires both to be idempotent by name).
type store struct {
	root string
	mu   sync.Mutex // one change at a time: the sidecars retry concurrently
}

type volumeMeta struct {
	Name           string `json:"name"`
	CapacityBytes  int64  `json:"capacityBytes"`
	SourceSnapshot string `json:"sourceSnapshot,omitempty"`
}

type snapshotMeta struct {
	Name           string    `json:"name"`
	SourceVolumeID string    `json:"sourceVolumeId"`
	SizeBytes      int64     `json:"sizeBytes"`
	CreatedAt      time.Time `json:"createdAt"`
}

var errNotFound = errors.New("not found")

func newStore(root string) (*store, error) {
	for _, dir := range []string{"volumes", "snapshots"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o700); err != nil {
			return nil, err
		}
	}
	return &store{root: root}, nil
}

func idFor(prefix, name string) string {
	sum := sha256.Sum256([]byte(name))
	return prefix + hex.EncodeToString(sum[:12])
}

func (s *store) volumeDir(id string) string   { return filepath.Join(s.root, "volumes", id) }
func (s *store) snapshotDir(id string) string { return filepath.Join(s.root, "snapshots", id) }

// createVolume makes the volume (filled from a snapshot when fromSnapshot is set) or returns the
// one an earlier call made under the same name.
func (s *store) createVolume(name string, capacity int64, fromSnapshot string) (string, volumeMeta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := idFor("vol-", name)
	if meta, err := readMeta[volumeMeta](s.volumeDir(id)); err == nil {
		return id, meta, nil
	}
	meta := volumeMeta{Name: name, CapacityBytes: capacity, SourceSnapshot: fromSnapshot}
	staging := s.volumeDir(id) + ".partial"
	_ = os.RemoveAll(staging)
	if fromSnapshot != "" {
		if _, err := readMeta[snapshotMeta](s.snapshotDir(fromSnapshot)); err != nil {
			return "", volumeMeta{}, fmt.Errorf("snapshot %s: %w", fromSnapshot, errNotFound)
		}
		if err := os.MkdirAll(staging, 0o700); err != nil {
			return "", volumeMeta{}, err
		}
		if err := copyTree(filepath.Join(s.snapshotDir(fromSnapshot), "data"), filepath.Join(staging, "data")); err != nil {
			return "", volumeMeta{}, err
		}
	} else if err := os.MkdirAll(filepath.Join(staging, "data"), 0o777); err != nil {
		return "", volumeMeta{}, err
	} else if err := os.Chmod(filepath.Join(staging, "data"), 0o777); err != nil { // umask-proof: any pod uid may write
		return "", volumeMeta{}, err
	}
	if err := writeMeta(staging, meta); err != nil {
		return "", volumeMeta{}, err
	}
	return id, meta, os.Rename(staging, s.volumeDir(id))
}

func (s *store) deleteVolume(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return os.RemoveAll(s.volumeDir(id))
}

func (s *store) volume(id string) (volumeMeta, error) { return readMeta[volumeMeta](s.volumeDir(id)) }

func (s *store) volumeDataPath(id string) string { return filepath.Join(s.volumeDir(id), "data") }

// createSnapshot copies the volume's files as they are now. A crash-consistent copy: the
// application's own hook (Velero's pre-backup hook) is what makes it consistent, as with any
// CSI snapshot.
func (s *store) createSnapshot(name, sourceVolumeID string) (string, snapshotMeta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := idFor("snap-", name)
	if meta, err := readMeta[snapshotMeta](s.snapshotDir(id)); err == nil {
		if meta.SourceVolumeID != sourceVolumeID {
			return "", snapshotMeta{}, fmt.Errorf("snapshot %q exists for another volume", name)
		}
		return id, meta, nil
	}
	source, err := readMeta[volumeMeta](s.volumeDir(sourceVolumeID))
	if err != nil {
		return "", snapshotMeta{}, fmt.Errorf("volume %s: %w", sourceVolumeID, errNotFound)
	}
	staging := s.snapshotDir(id) + ".partial"
	_ = os.RemoveAll(staging)
	if err := os.MkdirAll(staging, 0o700); err != nil {
		return "", snapshotMeta{}, err
	}
	if err := copyTree(s.volumeDataPath(sourceVolumeID), filepath.Join(staging, "data")); err != nil {
		return "", snapshotMeta{}, err
	}
	// The restore size is the source's capacity: a claim restored from it must ask for at least that.
	meta := snapshotMeta{Name: name, SourceVolumeID: sourceVolumeID, SizeBytes: source.CapacityBytes, CreatedAt: time.Now().UTC()}
	if err := writeMeta(staging, meta); err != nil {
		return "", snapshotMeta{}, err
	}
	return id, meta, os.Rename(staging, s.snapshotDir(id))
}

func (s *store) deleteSnapshot(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return os.RemoveAll(s.snapshotDir(id))
}

type storedSnapshot struct {
	ID   string
	Meta snapshotMeta
}

func (s *store) snapshots() ([]storedSnapshot, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, "snapshots"))
	if err != nil {
		return nil, err
	}
	var found []storedSnapshot
	for _, entry := range entries {
		if meta, err := readMeta[snapshotMeta](s.snapshotDir(entry.Name())); err == nil {
			found = append(found, storedSnapshot{ID: entry.Name(), Meta: meta})
		}
	}
	return found, nil
}

func copyTree(from, to string) error {
	// cp -a keeps owners, modes, times and links: a database's files must come back as they were.
	if output, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", from, to, err, output)
	}
	return nil
}

func readMeta[T any](dir string) (T, error) {
	var meta T
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return meta, errNotFound
	}
	if err != nil {
		return meta, err
	}
	return meta, json.Unmarshal(raw, &meta)
}

func writeMeta(dir string, meta any) error {
	raw, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "meta.json"), raw, 0o600)
}
