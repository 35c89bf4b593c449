package main

import (
	"context"
	"errors"
	"log"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
)

const defaultCapacity = 1 << 30 // a claim that asks for no size gets 1 GiB (nothing is reserved)

type controllerService struct {
	csi.UnimplementedControllerServer
	store *store
}

func (s *controllerService) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	var capabilities []*csi.ControllerServiceCapability
	for _, c := range []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT,
		csi.ControllerServiceCapability_RPC_LIST_SNAPSHOTS,
	} {
		capabilities = append(capabilities, &csi.ControllerServiceCapability{
			Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: c}},
		})
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: capabilities}, nil
}

func (s *controllerService) CreateVolume(_ context.Context, request *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	if request.Name == "" {
		return nil, status.Error(codes.InvalidArgument, "name is required")
	}
	capacity := request.GetCapacityRange().GetRequiredBytes()
	if capacity == 0 {
		capacity = defaultCapacity
	}
	fromSnapshot := ""
	if source := request.GetVolumeContentSource(); source != nil {
		snapshot := source.GetSnapshot()
		if snapshot == nil {
			return nil, status.Error(codes.InvalidArgument, "only snapshots can be a volume's content source")
		}
		fromSnapshot = snapshot.SnapshotId
	}
	id, meta, err := s.store.createVolume(request.Name, capacity, fromSnapshot)
	if errors.Is(err, errNotFound) {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	volume := &csi.Volume{VolumeId: id, CapacityBytes: meta.CapacityBytes}
	if meta.SourceSnapshot != "" {
		volume.ContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
			Snapshot: &csi.VolumeContentSource_SnapshotSource{SnapshotId: meta.SourceSnapshot},
		}}
	}
	return &csi.CreateVolumeResponse{Volume: volume}, nil
}

func (s *controllerService) DeleteVolume(_ context.Context, request *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	if err := s.store.deleteVolume(request.VolumeId); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.DeleteVolumeResponse{}, nil
}

func (s *controllerService) ValidateVolumeCapabilities(_ context.Context, request *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	if _, err := s.store.volume(request.VolumeId); err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeCapabilities: request.VolumeCapabilities,
	}}, nil
}

func (s *controllerService) CreateSnapshot(_ context.Context, request *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	if request.Name == "" || request.SourceVolumeId == "" {
		return nil, status.Error(codes.InvalidArgument, "name and source volume are required")
	}
	id, meta, err := s.store.createSnapshot(request.Name, request.SourceVolumeId)
	if errors.Is(err, errNotFound) {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	if err != nil {
		return nil, status.Error(codes.AlreadyExists, err.Error())
	}
	return &csi.CreateSnapshotResponse{Snapshot: snapshotOf(id, meta)}, nil
}

func (s *controllerService) DeleteSnapshot(_ context.Context, request *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	if err := s.store.deleteSnapshot(request.SnapshotId); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.DeleteSnapshotResponse{}, nil
}

// ListSnapshots is how the snapshotter checks a pre-provisioned content (a restore's): by its ID.
func (s *controllerService) ListSnapshots(_ context.Context, request *csi.ListSnapshotsRequest) (*csi.ListSnapshotsResponse, error) {
	stored, err := s.store.snapshots()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	response := &csi.ListSnapshotsResponse{}
	for _, snapshot := range stored {
		if request.SnapshotId != "" && snapshot.ID != request.SnapshotId {
			continue
		}
		if request.SourceVolumeId != "" && snapshot.Meta.SourceVolumeID != request.SourceVolumeId {
			continue
		}
		response.Entries = append(response.Entries, &csi.ListSnapshotsResponse_Entry{Snapshot: snapshotOf(snapshot.ID, snapshot.Meta)})
	}
	return response, nil
}

func snapshotOf(id string, meta snapshotMeta) *csi.Snapshot {
	return &csi.Snapshot{
		SnapshotId:     id,
		SourceVolumeId: meta.SourceVolumeID,
		SizeBytes:      meta.SizeBytes,
		CreationTime:   timestamppb.New(meta.CreatedAt),
		ReadyToUse:     true,
	}
}

// logCalls logs each call and its error: the test's failure output then shows what the sidecars
// and the kubelet asked for.
func logCalls(ctx context.Context, request any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	response, err := handler(ctx, request)
	if err != nil {
		log.Printf("%s: %v", info.FullMethod, err)
	} else if info.FullMethod != "/csi.v1.Identity/Probe" {
		log.Printf("%s ok", info.FullMethod)
	}
	return response, err
}
