package dev.quota.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceChecksTest {

    /** The methods the registered check was asked for. */
    private static final List<String> ASKED = new ArrayList<>();

    @ResourceChecks.Checked
    static final class SelfChecked {
        static {
            ResourceChecks.register(SelfChecked.class, method -> {
                ASKED.add(method.getName());
                return request -> { };
            });
        }

        public String get() {
            return "checked";
        }
    }

    @ResourceChecks.Checked
    static final class MarkedButUnregistered {
        public String get() {
            return "never";
        }
    }

    static final class Counted {
        public String get() {
            return "counted";
        }
    }

    /**
     * A runtime that constructs the resource class itself binds its methods before it makes an
     * instance: the static initializer that registers the check has not run then.
     */
    @Test
    void of_aMarkedClassNotYetInitialized_initializesIt_andAnswersItsCheck() throws Exception {
        Method get = SelfChecked.class.getMethod("get");

        assertThat(ResourceChecks.of(SelfChecked.class, get)).isNotNull();
        assertThat(ASKED).containsExactly("get");
    }

    @Test
    void of_anUnmarkedClass_isNull_soItsRequestsAreCounted() throws Exception {
        assertThat(ResourceChecks.of(Counted.class, Counted.class.getMethod("get"))).isNull();
    }

    @Test
    void of_aMarkedClassWithoutCheck_failsNamingIt() throws Exception {
        Method get = MarkedButUnregistered.class.getMethod("get");

        assertThatThrownBy(() -> ResourceChecks.of(MarkedButUnregistered.class, get))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(MarkedButUnregistered.class.getName());
    }
}
