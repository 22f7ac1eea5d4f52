package dev.quota.cdi;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a resource class whose methods refuse to run unless quota's filters saw the request: the
 * container adds it to every class with {@code @Path} ({@link QuotaLiteExtension} on CDI Lite
 * containers, {@link QuotaExtension} on the others). An application never writes it.
 */
@InterceptorBinding
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface QuotaGuarded {
}
