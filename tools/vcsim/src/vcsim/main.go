// A vCenter simulator for the tests and the benchmark: govmomi's simulator package (Debian's
// golang-github-vmware-govmomi-dev) serving the vim25 SOAP API on loopback over TLS with a fresh
// self-signed certificate, checking one user name and password. It writes the certificate (PEM)
// and, as an oracle for the tests, the estate it created (JSON), then prints "LISTENING <url>".
// The simulator's PropertyCollector answers everything in one page; a real vCenter pages by
// RetrieveOptions.maxObjects and hands a token for ContinueRetrievePropertiesEx: the collector is
// wrapped to do the same. POST /vcsim/fail-next-continue makes the next continuation answer a
// SystemError fault (a vCenter that stops answering mid-read).
// Build: GO111MODULE=off GOPATH=/usr/share/gocode:<repo>/tools/vcsim go build vcsim
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"net/http"
	"strconv"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// The pages not yet read, by token, for every session.
var (
	pagesMu      sync.Mutex
	pending      = map[string]rest{}
	nextToken    = 0
	failContinue = false
)

type rest struct {
	objects []types.ObjectContent
	max     int32
}

// pagingCollector is the simulator's PropertyCollector with real vCenter paging.
type pagingCollector struct {
	simulator.PropertyCollector
}

// page keeps what is past maxObjects under a new token.
func page(objects []types.ObjectContent, max int32) types.RetrieveResult {
	if max <= 0 || int(max) >= len(objects) {
		return types.RetrieveResult{Objects: objects}
	}
	pagesMu.Lock()
	defer pagesMu.Unlock()
	nextToken++
	token := strconv.Itoa(nextToken)
	pending[token] = rest{objects[max:], max}
	return types.RetrieveResult{Token: token, Objects: objects[:max]}
}

func (pc *pagingCollector) RetrievePropertiesEx(ctx *simulator.Context, r *types.RetrievePropertiesEx) soap.HasFault {
	res := pc.PropertyCollector.RetrievePropertiesEx(ctx, r)
	body, ok := res.(*methods.RetrievePropertiesExBody)
	if !ok || body.Res == nil || body.Res.Returnval == nil {
		return res
	}
	result := page(body.Res.Returnval.Objects, r.Options.MaxObjects)
	body.Res.Returnval = &result
	return body
}

func (pc *pagingCollector) ContinueRetrievePropertiesEx(ctx *simulator.Context, r *types.ContinueRetrievePropertiesEx) soap.HasFault {
	body := &methods.ContinueRetrievePropertiesExBody{}
	pagesMu.Lock()
	left, found := pending[r.Token]
	delete(pending, r.Token)
	fail := failContinue
	failContinue = false
	pagesMu.Unlock()
	if fail {
		body.Fault_ = simulator.Fault("injected: the vCenter stopped answering", &types.SystemError{Reason: "injected"})
		return body
	}
	if !found {
		body.Fault_ = simulator.Fault("", &types.InvalidArgument{InvalidProperty: "token"})
		return body
	}
	body.Res = &types.ContinueRetrievePropertiesExResponse{Returnval: page(left.objects, left.max)}
	return body
}

type vmOracle struct {
	Name       string   `json:"name"`
	Host       string   `json:"host"`
	PowerState string   `json:"powerState"`
	Uuid       string   `json:"uuid"`
	Macs       []string `json:"macs"`
	Datastores []string `json:"datastores"`
	Networks   []string `json:"networks"`
}

type hostOracle struct {
	Name       string   `json:"name"`
	Cluster    string   `json:"cluster"`
	Datastores []string `json:"datastores"`
	Networks   []string `json:"networks"`
	VSwitches  []string `json:"vswitches"`
}

type switchOracle struct {
	Name  string   `json:"name"`
	Hosts []string `json:"hosts"`
}

type portgroupOracle struct {
	Name   string `json:"name"`
	Switch string `json:"switch"`
}

type oracle struct {
	Clusters   []string          `json:"clusters"`
	Hosts      []hostOracle      `json:"hosts"`
	VMs        []vmOracle        `json:"vms"`
	Datastores []string          `json:"datastores"`
	Networks   []string          `json:"networks"`
	Portgroups []portgroupOracle `json:"portgroups"`
	Switches   []switchOracle    `json:"switches"`
}

// selfSigned makes a certificate for 127.0.0.1 and writes it (PEM) where the tests read it.
func selfSigned(certOut string) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	template := x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "vcsim.test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, &template, &template, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	if certOut != "" {
		if err := os.WriteFile(certOut, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}



func estate() oracle {
	var o oracle
	for _, e := range simulator.Map.All("ClusterComputeResource") {
		o.Clusters = append(o.Clusters, e.Entity().Name)
	}
	for _, e := range simulator.Map.All("HostSystem") {
		h := e.(*simulator.HostSystem)
		cluster := ""
		if p := simulator.Map.Get(*h.Parent); p != nil {
			if c, ok := p.(*simulator.ClusterComputeResource); ok {
				cluster = c.Name
			}
		}
		ho := hostOracle{Name: h.Name, Cluster: cluster, Datastores: entityNames(h.Datastore), Networks: entityNames(h.Network), VSwitches: []string{}}
		if h.Config != nil && h.Config.Network != nil {
			for _, v := range h.Config.Network.Vswitch {
				ho.VSwitches = append(ho.VSwitches, v.Name)
			}
		}
		o.Hosts = append(o.Hosts, ho)
	}
	for _, e := range simulator.Map.All("VirtualMachine") {
		vm := e.(*simulator.VirtualMachine)
		v := vmOracle{Name: vm.Name, PowerState: string(vm.Runtime.PowerState), Uuid: vm.Config.Uuid, Macs: []string{}, Datastores: entityNames(vm.Datastore), Networks: entityNames(vm.Network)}
		if vm.Runtime.Host != nil {
			v.Host = simulator.Map.Get(*vm.Runtime.Host).(mo.Entity).Entity().Name
		}
		for _, n := range vm.Guest.Net {
			if n.MacAddress != "" {
				v.Macs = append(v.Macs, n.MacAddress)
			}
		}
		o.VMs = append(o.VMs, v)
	}
	for _, e := range simulator.Map.All("Datastore") {
		o.Datastores = append(o.Datastores, e.Entity().Name)
	}
	for _, kind := range []string{"Network", "OpaqueNetwork"} {
		for _, e := range simulator.Map.All(kind) {
			o.Networks = append(o.Networks, e.Entity().Name)
		}
	}
	for _, e := range simulator.Map.All("DistributedVirtualPortgroup") {
		pg := e.(*simulator.DistributedVirtualPortgroup)
		sw := ""
		if pg.Config.DistributedVirtualSwitch != nil {
			sw = simulator.Map.Get(*pg.Config.DistributedVirtualSwitch).(mo.Entity).Entity().Name
		}
		o.Portgroups = append(o.Portgroups, portgroupOracle{Name: pg.Name, Switch: sw})
	}
	for _, e := range simulator.Map.All("DistributedVirtualSwitch") {
		dvs := e.(*simulator.DistributedVirtualSwitch)
		so := switchOracle{Name: dvs.Name, Hosts: []string{}}
		for _, h := range dvs.Summary.HostMember {
			so.Hosts = append(so.Hosts, simulator.Map.Get(h).(mo.Entity).Entity().Name)
		}
		o.Switches = append(o.Switches, so)
	}
	return o
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	username := flag.String("username", "user", "the one user name accepted")
	password := flag.String("password", "pass", "its password")
	certOut := flag.String("cert-out", "", "where to write the server certificate (PEM)")
	estateOut := flag.String("estate-out", "", "where to write the estate created (JSON)")
	dc := flag.Int("dc", 1, "datacenters")
	clusters := flag.Int("cluster", 1, "clusters per datacenter")
	clusterHosts := flag.Int("cluster-host", 3, "hosts per cluster")
	standalone := flag.Int("standalone-host", 1, "standalone hosts per datacenter")
	vms := flag.Int("vm", 2, "VMs per resource pool")
	ds := flag.Int("ds", 1, "datastores")
	pg := flag.Int("pg", 1, "distributed port groups per datacenter")
	flag.Parse()

	model := simulator.VPX()
	model.Datacenter, model.Cluster, model.ClusterHost, model.Host = *dc, *clusters, *clusterHosts, *standalone
	model.Machine, model.Datastore, model.Portgroup = *vms, *ds, *pg
	if err := model.Create(); err != nil {
		log.Fatal(err)
	}
	defer model.Remove()
	collector := simulator.Map.Get(model.ServiceContent.PropertyCollector).(*simulator.PropertyCollector)
	simulator.Map.Put(&pagingCollector{PropertyCollector: *collector})
	model.Service.Listen = &url.URL{Host: *listen, User: url.UserPassword(*username, *password)}
	model.Service.TLS = &tls.Config{Certificates: []tls.Certificate{selfSigned(*certOut)}}
	server := model.Service.NewServer()
	defer server.Close()
	if *estateOut != "" {
		data, _ := json.Marshal(estate())
		if err := os.WriteFile(*estateOut, data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	model.Service.ServeMux.HandleFunc("/vcsim/fail-next-continue", func(w http.ResponseWriter, r *http.Request) {
		pagesMu.Lock()
		failContinue = true
		pagesMu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	u := *server.URL
	u.User = nil
	fmt.Printf("LISTENING %s\n", u.String())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}

// The names of the managed entities that refs point at, in order.
func entityNames(refs []types.ManagedObjectReference) []string {
	names := []string{}
	for _, r := range refs {
		names = append(names, simulator.Map.Get(r).(mo.Entity).Entity().Name)
	}
	return names
}
