#!/bin/sh
# Installs clavisd in system mode (run as root from the repository, after `swift build -c release --static-swift-stdlib`):
#   sudo sh systemd/install.sh
# With --user, installs the user units instead (run as the user; the binary goes to ~/.local/bin).
set -eu
cd "$(dirname "$0")/.."
binary=.build/release/clavisd
[ -x "$binary" ] || { echo "install.sh: build first: swift build -c release --static-swift-stdlib" >&2; exit 1; }
if [ "${1:-}" = --user ]; then
    units="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
    mkdir -p "$HOME/.local/bin" "$units"
    install -m 0755 "$binary" "$HOME/.local/bin/clavisd"
    install -m 0755 .build/release/git-credential-clavis "$HOME/.local/bin/git-credential-clavis"
    sed "s|/usr/local/bin/clavisd|$HOME/.local/bin/clavisd|" systemd/user/clavisd.service > "$units/clavisd.service"
    install -m 0644 systemd/user/clavisd.socket "$units/clavisd.socket"
    systemctl --user daemon-reload
    systemctl --user enable --now clavisd.socket
else
    install -m 0755 "$binary" /usr/local/bin/clavisd
    install -m 0755 .build/release/clavis /usr/local/bin/clavis
    install -m 0755 .build/release/git-credential-clavis /usr/local/bin/git-credential-clavis
    pam=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/security
    install -d "$pam" && install -m 0644 .build/release/libpam_clavis.so "$pam/pam_clavis.so"
    install -m 0644 systemd/clavis.sysusers /usr/lib/sysusers.d/clavis.conf
    systemd-sysusers /usr/lib/sysusers.d/clavis.conf
    install -d -m 0755 -o root -g root /etc/clavis/apps.d
    # The command line is the keychain administrator: it may set, change or remove the passcode.
    printf '%s\n' '{"executable": "/usr/local/bin/clavis", "application-identifier": "clavis", "keychain-administrator": true}' \
        > /etc/clavis/apps.d/clavis.json
    chmod 0644 /etc/clavis/apps.d/clavis.json
    install -m 0644 systemd/clavisd.service systemd/clavisd.socket /etc/systemd/system/
    systemctl daemon-reload
    systemctl enable --now clavisd.socket
fi
