// rehearsal-csi-hostpath: a minimal CSI driver for the test cluster's real node, so that restore
// tests can go through CSI volume snapshots (external-provisioner, external-snapshotter and Velero's
// CSI support are the real, upstream programs; only the storage behind them is this file's).
//
// Why our own: the upstream csi-driver-host-path and node-driver-registrar are not served by the
// module proxy this machine reaches; the CSI spec, the sidecars and the kubelet's plugin
// registration API are. So this driver is the smallest thing that serves those:
//   - Identity, Controller (create/delete volume, from a snapshot too; create/delete/list snapshot)
//     and Node (publish = bind mount) services on one socket, for the sidecars and the kubelet;
//   - the kubelet's plugin registration (what node-driver-registrar does for real drivers).
//
// A volume is a directory, a snapshot a full copy of one (cp -a: owners, modes and times kept),
// both under --state-dir. It is test infrastructure, single node, never part of Rehearsal.
package main

import (
	"flag"
	"log"
	"net"
	"os"
	"path/filepath"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	registration "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

func main() {
	driverName := flag.String("driver-name", "hostpath.csi.rehearsal.dev", "the CSI driver name (CSIDriver, StorageClass provisioner)")
	endpoint := flag.String("endpoint", "", "unix socket path the CSI services listen on")
	registrationSocket := flag.String("registration-socket", "", "unix socket path in the kubelet's plugins_registry directory (empty: do not register)")
	nodeID := flag.String("node-id", "", "the Kubernetes node this driver serves")
	stateDir := flag.String("state-dir", "", "directory holding the volumes and snapshots")
	flag.Parse()
	if *endpoint == "" || *nodeID == "" || *stateDir == "" {
		log.Fatal("--endpoint, --node-id and --state-dir are required")
	}

	store, err := newStore(*stateDir)
	if err != nil {
		log.Fatalf("state directory: %v", err)
	}
	server := grpc.NewServer(grpc.UnaryInterceptor(logCalls))
	csi.RegisterIdentityServer(server, &identityService{name: *driverName})
	csi.RegisterControllerServer(server, &controllerService{store: store})
	csi.RegisterNodeServer(server, &nodeService{store: store, nodeID: *nodeID})
	go serve(server, *endpoint)

	if *registrationSocket != "" {
		kubeletRegistration := grpc.NewServer()
		registration.RegisterRegistrationServer(kubeletRegistration, &registrationService{name: *driverName, endpoint: *endpoint})
		go serve(kubeletRegistration, *registrationSocket)
	}
	select {}
}

func serve(server *grpc.Server, socketPath string) {
	if err := os.MkdirAll(filepath.Dir(socketPath), 0o750); err != nil {
		log.Fatal(err)
	}
	_ = os.Remove(socketPath) // a socket left by an earlier run
	listener, err := net.Listen("unix", socketPath)
	if err != nil {
		log.Fatalf("listen %s: %v", socketPath, err)
	}
	log.Printf("serving on %s", socketPath)
	log.Fatal(server.Serve(listener))
}
