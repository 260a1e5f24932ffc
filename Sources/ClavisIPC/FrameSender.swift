public import ClavisSystem

/// The process that sent a frame, as the kernel attached it to the bytes (`SCM_CREDENTIALS`): never as the sender
/// says. Bytes sent before the receiver asked for credentials carry none (process 0).
public typealias FrameSender = ProcessCredentials
