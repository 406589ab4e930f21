// A second public entry of shared/ejabberd/ (issue 10 §2): PUBLIC_ENTRIES in eslint.config.js says
// which modules it re-exports and why they are not in index.ts.
export {
  clusterStatus, connectedSessions, killNode, listCluster, startCluster, startNode, stopCluster,
} from './cluster-control.js';
export { type ClusterHosts, bridgeName, describeHosts, netnsName, probeNetns, readHosts, removeHosts } from './hosts.js';
export { ensureCertificate, exposure, exposureReport, fingerprint, installCertificate, uploadUrl } from './expose.js';
export { domainBalancingYaml, renderConfig } from './render.js';
export { type TempInstance, startTempInstance } from './temp-instance.js';
export * as control from './control.js';
