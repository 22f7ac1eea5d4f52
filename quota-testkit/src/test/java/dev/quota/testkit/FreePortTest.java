package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Ports are drawn below the kernel's ephemeral range, where no outgoing connection is given them. */
class FreePortTest {

    @Test
    void ephemeralLow_isTheKernelsWholeFirstPort_notItsFirstDigit_regressionForASizeZeroProcRead() {
        // Files.readString reads /proc's "32768\t60999" as "3" on JDK 17 (the file reports size 0)
        assertThat(FreePort.ephemeralLow()).isGreaterThan(1024);
    }

    @Test
    void loopback_isBelowTheEphemeralRange_andFree() throws IOException {
        for (int i = 0; i < 100; i++) {
            int port = FreePort.loopback();
            assertThat(port).isBetween(FreePort.LOWEST, FreePort.ephemeralLow() - 1);
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
    }

    @Test
    void withClusterBus_theBusPortIsBelowTheEphemeralRangeToo() {
        for (int i = 0; i < 100; i++) {
            int port = FreePort.find(true);
            assertThat(port + FreePort.CLUSTER_BUS_OFFSET).isLessThan(FreePort.ephemeralLow());
        }
    }
}
