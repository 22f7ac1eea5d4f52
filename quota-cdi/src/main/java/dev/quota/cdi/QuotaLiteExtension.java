package dev.quota.cdi;

import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.ClassConfig;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.ws.rs.Path;

/**
 * Puts {@link QuotaGuarded} on every resource class as the application is built, on containers that
 * run build compatible extensions (Quarkus ArC; Weld, through its translator): a resource method
 * that runs without quota's filters having seen the request (the application lists its classes
 * but not {@code QuotaProviders}, or the runtime never found the provider) is then refused 503
 * instead of served unlimited. Loaded from {@code META-INF/services}.
 */
public final class QuotaLiteExtension implements BuildCompatibleExtension {

    /** For the container's service loader. */
    public QuotaLiteExtension() {
    }

    /**
     * Adds the binding to a class with {@code @Path} on it or on a method, unless a portable
     * extension of this module already did.
     *
     * @param type the class, as the container will see it
     */
    @Enhancement(types = Object.class, withSubtypes = true, withAnnotations = Path.class)
    public void guard(ClassConfig type) {
        if (type.info().hasAnnotation(Path.class) && !type.info().hasAnnotation(QuotaGuarded.class)) {
            type.addAnnotation(QuotaGuarded.class);
        }
    }
}
