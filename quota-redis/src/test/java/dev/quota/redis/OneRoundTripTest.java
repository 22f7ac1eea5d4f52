package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Amount;
import dev.quota.core.AmountLimits;
import dev.quota.core.Caller;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.RouteMatch;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo's transfer decision (a plan with two limits, a calendar day, the transfers rule per
 * customer, the limit all customers share, and the amount: five keys) costs one Redis command, one
 * round trip, however many limits. Counted with {@code INFO commandstats}, which also counts the
 * commands a script runs: one EVALSHA, and inside it one GET per key and one SET per key written.
 */
class OneRoundTripTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private RespClient admin;
    private QuotaService service;

    @BeforeEach
    void start() {
        admin = RespClient.connect(redis.server().host(), redis.server().port());
        service = service(400_000);
    }

    /** The transfer's limits over a store that remembers at most {@code maxRememberedKeys} keys. */
    private QuotaService service(int maxRememberedKeys) {
        QuotaConfig config = QuotaConfig.builder()
                .plan(Plan.of("pro", List.of(
                        new Limit("burst", 100, Refill.greedy(50, Duration.ofSeconds(1))),
                        new Limit("hourly", 5000, Refill.interval(5000, Duration.ofHours(1))),
                        new Limit("daily", 50_000, Refill.calendar(ChronoUnit.DAYS, BERLIN))), FailurePolicy.LOCAL))
                .rule(Rule.builder("transfers").matches(List.of(RouteMatch.parse("POST /api/v1/transfers")))
                        .perCustomer(List.of(new Limit("per-minute", 10, Refill.greedy(10, Duration.ofMinutes(1)))))
                        .shared(List.of(new Limit("global", 500, Refill.greedy(500, Duration.ofSeconds(1))))).build())
                .amounts(AmountLimits.of("transfer-amount", List.of(
                        new Limit("daily", 1_000_000, Refill.calendar(ChronoUnit.DAYS, BERLIN))), FailurePolicy.CLOSED))
                .build();
        return QuotaService.builder().clock(clock).config(config)
                .store(RedisStore.builder().uri(redis.uri()).clock(clock)
                        .maxRememberedKeys(maxRememberedKeys).build())
                .build();
    }

    @AfterEach
    void stop() {
        service.close();
        admin.close();
    }

    private QuotaDecision transfer(Customer customer, long cents) {
        return transfer(service, customer, cents);
    }

    private static QuotaDecision transfer(QuotaService service, Customer customer, long cents) {
        return service.decide(Caller.of(customer), "transfers", new Amount("transfer-amount", "EUR", cents));
    }

    /** Commands since the last reset, without the ones this test sends itself. */
    private Map<String, Long> commands() {
        Map<String, Long> stats = new java.util.TreeMap<>(admin.commandStats());
        stats.remove("info");
        stats.keySet().removeIf(name -> name.startsWith("config")); // Redis 7 names it "config|resetstat"
        return stats;
    }

    @Test
    void transferDecisionOverFiveBuckets_isOneCommand_forANewCustomerAndAfterwards() {
        Customer customer = Customer.of("GLOBEX-PRO", "pro");
        transfer(Customer.of("WARM-UP", "pro"), 1); // loads the script into this Redis (once per server)
        admin.command("CONFIG", "RESETSTAT");

        QuotaDecision first = transfer(customer, 125_00);
        Map<String, Long> afterFirst = commands();
        admin.command("CONFIG", "RESETSTAT");
        QuotaDecision second = transfer(customer, 125_00);
        Map<String, Long> afterSecond = commands();

        assertThat(first.outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        assertThat(first.limits()).extracting(s -> s.policy()).containsExactly("pro-burst", "pro-hourly",
                "pro-daily", "transfers-per-minute", "transfers-global", "transfer-amount-daily");
        assertThat(second.outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        // a new customer's keys are assumed absent: no read before the write
        assertThat(afterFirst).as("the first transfer").containsExactlyInAnyOrderEntriesOf(
                Map.of("evalsha", 1L, "get", 5L, "set", 5L));
        assertThat(afterSecond).as("the second transfer").containsExactlyInAnyOrderEntriesOf(
                Map.of("evalsha", 1L, "get", 5L, "set", 5L));
    }

    @Test
    void refusedTransfer_isOneCommand_andStillChargesThePlanOneRequest() {
        Customer customer = Customer.of("INITECH", "pro");
        transfer(customer, 1_000_000);
        admin.command("CONFIG", "RESETSTAT");

        QuotaDecision refused = transfer(customer, 1);

        assertThat(refused.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        assertThat(refused.violated().policy()).isEqualTo("transfer-amount-daily");
        // one script: checks the five keys, writes the plan's two (one request token each)
        assertThat(commands()).containsExactlyInAnyOrderEntriesOf(Map.of("evalsha", 1L, "get", 5L, "set", 2L));
        assertThat(refused.limits().get(0).remaining()).as("pro-burst after two requests").isEqualTo(98);
        assertThat(refused.limits().get(3).remaining()).as("transfers-per-minute: not taken").isEqualTo(9);
    }

    @Test
    void rememberedKeys_countKeysNotCustomers_fourOwnKeysATransferPlusTheSharedOne() {
        // room for five customers' transfers: four keys of their own each, and the shared key
        try (QuotaService small = service(5 * 4 + 1)) {
            List<Customer> five = customers("FIVE-", 5);
            List<Customer> ten = customers("TEN-", 10);
            five.forEach(c -> transfer(small, c, 1));
            admin.command("CONFIG", "RESETSTAT");

            five.forEach(c -> transfer(small, c, 1));
            long withinTheBound = commands().get("evalsha");
            ten.forEach(c -> transfer(small, c, 1));
            admin.command("CONFIG", "RESETSTAT");
            ten.forEach(c -> transfer(small, c, 1));
            Map<String, Long> pastTheBound = commands();

            assertThat(withinTheBound).as("five customers remembered: one script each").isEqualTo(5);
            // ten customers in turn: each one's keys were forgotten since, while Redis holds them,
            // so its decision reads them first (one MGET for its four keys), then one script writes
            assertThat(pastTheBound).as("ten customers past the bound: a read and a script each")
                    .containsEntry("evalsha", 10L).containsEntry("mget", 10L);
        }
    }

    private static List<Customer> customers(String prefix, int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> Customer.of(prefix + i, "pro")).toList();
    }
}
