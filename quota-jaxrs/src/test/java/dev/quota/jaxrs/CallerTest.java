package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Customer;
import org.junit.jupiter.api.Test;

class CallerTest {

    @Test
    void kindsWithACustomer_requireOne_andOthersRefuseOne() {
        Customer acme = Customer.of("acme", "free");

        assertThat(Caller.identified(acme).customer()).isEqualTo(acme);
        assertThatThrownBy(() -> new Caller(Caller.Kind.ANONYMOUS, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ANONYMOUS needs a customer");
        assertThatThrownBy(() -> new Caller(Caller.Kind.UNKNOWN_KEY, acme))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("UNKNOWN_KEY takes no customer");
    }

    @Test
    void presentedCredential_isTrueForGoodAndBadCredentials_only() {
        assertThat(Caller.identified(Customer.of("acme", "free")).presentedCredential()).isTrue();
        assertThat(Caller.unknownKey().presentedCredential()).isTrue();
        assertThat(Caller.badKey().presentedCredential()).isTrue();
        assertThat(Caller.anonymous(Customer.of("ip:a", "anonymous")).presentedCredential()).isFalse();
        assertThat(Caller.missing().presentedCredential()).isFalse();
    }

    @Test
    void firstOf_withoutResolvers_isRejected() {
        assertThatThrownBy(CallerResolver::firstOf)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("firstOf needs at least one resolver but was given none");
    }
}
