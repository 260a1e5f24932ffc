// As on Apple platforms, `import LocalAuthentication` brings Security (and with it Foundation).
@_exported import Security
