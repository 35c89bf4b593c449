package main

import (
	"context"
	"log"

	registration "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// registrationService answers the kubelet's plugin watcher, which finds the socket in its
// plugins_registry directory: it asks what the plugin is and where its CSI endpoint is, then says
// whether registration worked.
type registrationService struct {
	registration.UnimplementedRegistrationServer
	name, endpoint string
}

func (s *registrationService) GetInfo(context.Context, *registration.InfoRequest) (*registration.PluginInfo, error) {
	return &registration.PluginInfo{
		Type:              registration.CSIPlugin,
		Name:              s.name,
		Endpoint:          s.endpoint,
		SupportedVersions: []string{"1.0.0"},
	}, nil
}

func (s *registrationService) NotifyRegistrationStatus(_ context.Context, status *registration.RegistrationStatus) (*registration.RegistrationStatusResponse, error) {
	if status.PluginRegistered {
		log.Printf("registered with the kubelet")
	} else {
		// The kubelet retries when the socket is re-created; exiting makes the failure visible.
		log.Fatalf("the kubelet refused the registration: %s", status.Error)
	}
	return &registration.RegistrationStatusResponse{}, nil
}
