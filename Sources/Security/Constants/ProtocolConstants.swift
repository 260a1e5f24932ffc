// Values of `kSecAttrProtocol` (internet passwords): Apple's four-character protocol codes.

/// The FTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// The FTPAccount protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// The HTTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// The IRC protocol.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// The NNTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// The POP3 protocol.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// The SMTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// The SOCKS protocol.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// The IMAP protocol.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// The LDAP protocol.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// The AppleTalk protocol.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// The AFP protocol.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// The Telnet protocol.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// The SSH protocol.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// The FTPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// The HTTPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// The HTTPProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// The HTTPSProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// The FTPProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// The SMB protocol.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// The RTSP protocol.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// The RTSPProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// The DAAP protocol.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// The EPPC protocol.
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// The IPP protocol.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// The NNTPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// The LDAPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// The TelnetS protocol.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// The IMAPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// The IRCS protocol.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// The POP3S protocol.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"
