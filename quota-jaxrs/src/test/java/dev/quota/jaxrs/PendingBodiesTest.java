package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Caller;
import dev.quota.core.Customer;
import dev.quota.core.Identity;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The places of pending bodies: bounded per customer and per address, given back once, never leaked for good. */
class PendingBodiesTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final PendingBodies bodies = new PendingBodies(nanos::get);
    private final Identity twoEach = Identity.builder().pendingBodies(2).build();

    private static Caller caller(String id, String address) throws UnknownHostException {
        return Caller.builder(Caller.Kind.IDENTIFIED).customer(Customer.of(id, "free"))
                .address(InetAddress.getByName(address)).build();
    }

    @Test
    void thirdBodyOfACustomer_isRefused_untilOneLeaves_andASecondLeaveGivesNothingMore() throws Exception {
        PendingBodies.Ticket first = bodies.enter(caller("acme", "192.0.2.1"), twoEach);
        assertThat(bodies.enter(caller("acme", "192.0.2.2"), twoEach)).isNotNull();

        assertThat(bodies.enter(caller("acme", "192.0.2.3"), twoEach)).as("the customer holds 2").isNull();
        assertThat(first).isNotNull();
        first.leave();
        first.leave();
        assertThat(bodies.enter(caller("acme", "192.0.2.3"), twoEach)).isNotNull();
        assertThat(bodies.enter(caller("acme", "192.0.2.4"), twoEach)).as("one place came back, not two").isNull();
        assertThat(bodies.pending(Customer.of("acme", "free"))).isEqualTo(2);
    }

    @Test
    void thirdBodyFromAnAddress_isRefused_whoeverSendsIt_andTakesNoPlaceOfItsCustomer() throws Exception {
        bodies.enter(caller("acme", "192.0.2.1"), twoEach);
        bodies.enter(caller("globex", "192.0.2.1"), twoEach);

        assertThat(bodies.enter(caller("initech", "192.0.2.1"), twoEach)).isNull();
        assertThat(bodies.pending(Customer.of("initech", "free"))).isZero();
        assertThat(bodies.enter(caller("initech", "192.0.2.9"), twoEach)).isNotNull();
    }

    @Test
    void placeNeverGivenBack_stopsCountingAfterSixtySeconds() throws Exception {
        bodies.enter(caller("acme", "192.0.2.1"), twoEach);
        bodies.enter(caller("acme", "192.0.2.1"), twoEach);
        nanos.addAndGet(Duration.ofSeconds(60).toNanos());
        assertThat(bodies.enter(caller("acme", "192.0.2.1"), twoEach)).as("at 60 s they still count").isNull();

        nanos.addAndGet(1);

        assertThat(bodies.enter(caller("acme", "192.0.2.1"), twoEach)).isNotNull();
        assertThat(bodies.pending(Customer.of("acme", "free"))).isEqualTo(1);
    }
}
