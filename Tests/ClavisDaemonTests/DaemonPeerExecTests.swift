import ClavisTestSupport
import Foundation
import Testing

/// The daemon answers a connection for the program it identified: a process that execs another program after
/// connecting (keeping the socket open across the exec) is not answered as the first one.
@Suite(.serialized) final class DaemonPeerExecTests {
    /// Connects (as perl), has a status request answered, then execs `/bin/sh` on the same socket, which sends the
    /// request again and counts the bytes of any answer's header.
    private static let connectThenExec = #"""
        use Socket; use POSIX; $| = 1;
        $^F = 10;  # descriptors up to 10 stay open across exec
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
        connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
        my $body;
        do {  # answered `sendAgain` (24) while the daemon identified this process after it sent
            syswrite($s, pack("a4 C N N C", "CLVS", 4, 1, 1, 9)) == 14 or die "send: $!";
            my $header = "";
            while (length($header) < 13) { sysread($s, $header, 13 - length($header), length($header)) or die "eof"; }
            my (undef, undef, undef, $length) = unpack("a4 C N N", $header);
            $body = "";
            while (length($body) < $length) { sysread($s, $body, $length - length($body), length($body)) or die; }
        } while (unpack("C", $body) == 24);
        print "first answer: ", unpack("C", $body), "\n";
        fileno($s) == 3 or POSIX::dup2(fileno($s), 3) or die "dup2: $!";
        exec("/bin/sh", "-c", q{printf 'CLVS\004\000\000\000\002\000\000\000\001\011' >&3; head -c 13 <&3 | wc -c});
        """#

    @Test func aPeerThatExecsAnotherProgramIsNotAnsweredAsTheFirst() throws {
        let daemon = try TestDaemon(mode: "user")
        defer { daemon.stop() }
        let output = try TestDaemon.run("/usr/bin/perl", ["-e", Self.connectThenExec, daemon.socket])
        let lines = output.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        // The first program's request is answered with a status (response 8); the exec'd program's gets no byte.
        #expect(lines == ["first answer: 8", "0"])
    }
}
