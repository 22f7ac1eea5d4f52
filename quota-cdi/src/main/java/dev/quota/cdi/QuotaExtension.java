package dev.quota.cdi;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.ws.rs.Path;

/**
 * On a container that runs portable extensions (Weld: Payara, WildFly, Helidon): marks every
 * resource class {@link QuotaGuarded}, so that a resource method whose request quota's filters did
 * not see is refused ({@link QuotaLiteExtension} does it on CDI Lite containers). Its presence, as
 * a bean, tells {@link QuotaProducers} not to start on the {@code Startup} event, which Payara fires
 * before the
 * application's beans on a data source can be created: there the service is built as the Jakarta REST
 * application starts ({@link QuotaProviders}), which a bad setting still fails. The module's beans
 * are discovered from the jar's {@code META-INF/beans.xml}.
 */
public final class QuotaExtension implements Extension {

    /** For the container's service loader. */
    public QuotaExtension() {
    }

    /**
     * Puts {@link QuotaGuarded} on every resource class, unless {@link QuotaLiteExtension} already
     * did (a Weld that translates build compatible extensions runs both).
     */
    <T> void guard(@Observes @WithAnnotations(Path.class) ProcessAnnotatedType<T> type) {
        if (type.getAnnotatedType().isAnnotationPresent(Path.class)
                && !type.getAnnotatedType().isAnnotationPresent(QuotaGuarded.class)) {
            type.configureAnnotatedType().add(Guarded.INSTANCE);
        }
    }

    /** {@link QuotaGuarded} as a value, to add. */
    private static final class Guarded extends AnnotationLiteral<QuotaGuarded> implements QuotaGuarded {
        static final Guarded INSTANCE = new Guarded();
        private static final long serialVersionUID = 1L;
    }
}
