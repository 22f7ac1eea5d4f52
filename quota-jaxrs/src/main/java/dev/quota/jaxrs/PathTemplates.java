package dev.quota.jaxrs;

import jakarta.ws.rs.Path;
import java.lang.reflect.Method;

/**
 * The path template of a resource method, as Jakarta REST composes it: class {@code @Path} then
 * method {@code @Path}, each looked up on supertypes too (annotated interfaces). Its comparable
 * form is {@link dev.quota.core.RouteMatch#shapeOf}.
 */
final class PathTemplates {

    private PathTemplates() {
    }

    /** {@code /accounts/{id: [0-9]+}/export}: the class and method templates joined. */
    static String template(Class<?> resourceClass, Method method) {
        Path classPath = ResourceAnnotations.onClass(resourceClass, Path.class);
        Path methodPath = ResourceAnnotations.onMethod(resourceClass, method, Path.class);
        String joined = (classPath == null ? "" : classPath.value()) + "/" + (methodPath == null ? "" : methodPath.value());
        String template = ("/" + joined).replaceAll("/{2,}", "/");
        return template.length() > 1 && template.endsWith("/") ? template.substring(0, template.length() - 1) : template;
    }
}
