package main

import (
	"bufio"
	"context"
	"os"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// nodeService mounts volumes into pods. No staging (no NodeStage capability): the kubelet calls
// NodePublishVolume with each pod's target path, and the volume's directory is bind-mounted there.
// The driver runs as a host process in the kubelet's mount namespace, so the mount is the one the
// kubelet and containerd see.
type nodeService struct {
	csi.UnimplementedNodeServer
	store  *store
	nodeID string
}

func (s *nodeService) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: s.nodeID}, nil
}

func (s *nodeService) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{}, nil
}

func (s *nodeService) NodePublishVolume(_ context.Context, request *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	target := request.TargetPath
	if target == "" || request.VolumeId == "" {
		return nil, status.Error(codes.InvalidArgument, "volume and target path are required")
	}
	if request.GetVolumeCapability().GetBlock() != nil {
		return nil, status.Error(codes.InvalidArgument, "block volumes are not supported")
	}
	if _, err := s.store.volume(request.VolumeId); err != nil {
		return nil, status.Errorf(codes.NotFound, "volume %s: %v", request.VolumeId, err)
	}
	if err := os.MkdirAll(target, 0o750); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	mounted, err := isMountPoint(target)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if mounted { // a retried call
		return &csi.NodePublishVolumeResponse{}, nil
	}
	if err := unix.Mount(s.store.volumeDataPath(request.VolumeId), target, "", unix.MS_BIND, ""); err != nil {
		return nil, status.Errorf(codes.Internal, "bind mount: %v", err)
	}
	if request.Readonly {
		if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			_ = unix.Unmount(target, 0)
			return nil, status.Errorf(codes.Internal, "read-only remount: %v", err)
		}
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

func (s *nodeService) NodeUnpublishVolume(_ context.Context, request *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	target := request.TargetPath
	mounted, err := isMountPoint(target)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if mounted {
		if err := unix.Unmount(target, 0); err != nil {
			return nil, status.Errorf(codes.Internal, "unmount: %v", err)
		}
	}
	if err := os.Remove(target); err != nil && !os.IsNotExist(err) {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// isMountPoint reads /proc/self/mountinfo: a bind mount of a directory on the same file system has
// the same device as its parent, so comparing devices would miss it.
func isMountPoint(path string) (bool, error) {
	file, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false, err
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 64*1024), 1024*1024)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) > 4 && unescapeMountPath(fields[4]) == path {
			return true, nil
		}
	}
	return false, scanner.Err()
}

func unescapeMountPath(path string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(path)
}
