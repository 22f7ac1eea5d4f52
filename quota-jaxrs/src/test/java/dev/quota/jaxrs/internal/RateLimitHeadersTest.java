package dev.quota.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Refill;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

    private static Limit limit(long capacity, Refill refill) {
        return new Limit("l", capacity, refill);
    }

    @Test
    void window_ofGreedyRefill_isTheTimeToRefillFromEmpty_roundedUp() {
        assertThat(RateLimitHeaders.windowSeconds(limit(20, Refill.greedy(10, Duration.ofSeconds(1))))).isEqualTo(2);
        assertThat(RateLimitHeaders.windowSeconds(limit(5, Refill.greedy(2, Duration.ofSeconds(1))))).isEqualTo(3);
        assertThat(RateLimitHeaders.windowSeconds(limit(1, Refill.greedy(10, Duration.ofSeconds(1))))).isEqualTo(1);
        assertThat(RateLimitHeaders.windowSeconds(limit(10, Refill.greedy(1, Duration.ofHours(1))))).isEqualTo(36_000);
    }

    @Test
    void window_ofGreedyRefill_isExactBeyondLongNanos() {
        // 10^12 tokens, one per 100 days: 8.64e24 ns, past the range of a long
        long days = 100L * 1_000_000_000_000L;
        assertThat(RateLimitHeaders.windowSeconds(limit(1_000_000_000_000L, Refill.greedy(1, Duration.ofDays(100)))))
                .isEqualTo(days * 86_400);
    }

    @Test
    void window_ofIntervalRefill_isWholePeriodsUntilFull() {
        assertThat(RateLimitHeaders.windowSeconds(limit(100, Refill.interval(100, Duration.ofMinutes(15)))))
                .isEqualTo(900);
        assertThat(RateLimitHeaders.windowSeconds(limit(100, Refill.interval(30, Duration.ofMinutes(1)))))
                .isEqualTo(240);
    }

    @Test
    void window_ofCalendarRefill_isTheNominalUnit() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        assertThat(RateLimitHeaders.windowSeconds(limit(1, Refill.calendar(ChronoUnit.HOURS, berlin)))).isEqualTo(3_600);
        assertThat(RateLimitHeaders.windowSeconds(limit(1, Refill.calendar(ChronoUnit.DAYS, berlin)))).isEqualTo(86_400);
        assertThat(RateLimitHeaders.windowSeconds(limit(1, Refill.calendar(ChronoUnit.WEEKS, berlin)))).isEqualTo(604_800);
        assertThat(RateLimitHeaders.windowSeconds(limit(1, Refill.calendar(ChronoUnit.MONTHS, berlin))))
                .isEqualTo(2_678_400);
    }

    @Test
    void retryAfter_roundsUp_andIsNeverZero() {
        assertThat(RateLimitHeaders.retryAfterSeconds(Duration.ZERO)).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(Duration.ofNanos(1))).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(Duration.ofSeconds(1))).isEqualTo(1);
        assertThat(RateLimitHeaders.retryAfterSeconds(Duration.ofMillis(1001))).isEqualTo(2);
    }

    @Test
    void headers_listRequestLimitsOnly_inDecisionOrder() {
        Limit burst = new Limit("burst", 20, Refill.greedy(10, Duration.ofSeconds(1)));
        Limit daily = new Limit("daily", 1000, Refill.calendar(ChronoUnit.DAYS, ZoneId.of("UTC")));
        List<LimitStatus> limits = List.of(
                LimitStatus.of("free-burst", burst, LimitStatus.Role.PLAN, 0, Duration.ofMillis(1500),
                        Duration.ofMillis(100)),
                LimitStatus.of("transfer-amount-daily", daily, LimitStatus.Role.AMOUNT, 5, Duration.ofHours(1),
                        Duration.ZERO),
                LimitStatus.of("free-daily", daily, LimitStatus.Role.PLAN, 980, Duration.ofDays(1),
                        Duration.ZERO));

        assertThat(RateLimitHeaders.policy(limits)).isEqualTo("\"free-burst\";q=20;w=2, \"free-daily\";q=1000;w=86400");
        assertThat(RateLimitHeaders.rateLimit(limits)).isEqualTo("\"free-burst\";r=0;t=2, \"free-daily\";r=980;t=86400");
    }

    @Test
    void headers_withoutRequestLimits_areAbsent() {
        Limit daily = new Limit("daily", 1000, Refill.calendar(ChronoUnit.DAYS, ZoneId.of("UTC")));
        List<LimitStatus> amounts = List.of(
                LimitStatus.of("transfer-amount-daily", daily, LimitStatus.Role.AMOUNT, 5, Duration.ofHours(1),
                        Duration.ZERO));

        assertThat(RateLimitHeaders.policy(amounts)).isNull();
        assertThat(RateLimitHeaders.rateLimit(amounts)).isNull();
    }

    @Test
    void number_isTheDecimalText_insideAndOutsideTheSmallNumbersMadeOnce() {
        for (long value : new long[] {0, 1, 9, 10, 999, 1023, 1024, 86_400, -1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertThat(RateLimitHeaders.number(value)).isEqualTo(Long.toString(value));
            assertThat(RateLimitHeaders.number(value)).isEqualTo(Long.toString(value)); // made once, then kept
        }
    }

    @Test
    void addAllowed_setsEachHeaderOnce_replacingAnEarlierValue_andLeavesItsListOpenToMore() {
        Limit burst = new Limit("burst", 20, Refill.greedy(10, Duration.ofSeconds(1)));
        LimitStatus status = LimitStatus.of("free-burst", burst, LimitStatus.Role.PLAN, 19, Duration.ofMillis(100),
                Duration.ZERO);
        QuotaDecision decision = QuotaDecision.allowed(List.of(status));
        MultivaluedMap<String, Object> headers = new MultivaluedHashMap<>();
        headers.add(RateLimitHeaders.X_REMAINING, "stale");

        RateLimitHeaders.addAllowed(headers, decision);

        assertThat(headers).containsOnlyKeys(RateLimitHeaders.POLICY, RateLimitHeaders.RATE_LIMIT,
                RateLimitHeaders.X_LIMIT, RateLimitHeaders.X_REMAINING, RateLimitHeaders.X_RESET);
        assertThat(headers.get(RateLimitHeaders.POLICY)).containsExactly("\"free-burst\";q=20;w=2");
        assertThat(headers.get(RateLimitHeaders.RATE_LIMIT)).containsExactly("\"free-burst\";r=19;t=1");
        assertThat(headers.get(RateLimitHeaders.X_LIMIT)).containsExactly("20");
        assertThat(headers.get(RateLimitHeaders.X_REMAINING)).containsExactly("19");
        assertThat(headers.get(RateLimitHeaders.X_RESET)).containsExactly("1");
        // a filter after this one may add to a header, as it could after putSingle
        headers.add(RateLimitHeaders.RATE_LIMIT, "\"other\";r=1;t=1");
        assertThat(headers.get(RateLimitHeaders.RATE_LIMIT)).hasSize(2);
    }
}
