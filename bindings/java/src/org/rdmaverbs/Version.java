package org.rdmaverbs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The symbol version node of a function of librdmaverbs (RDMAVERBS_1.3):
 * Loader finds the function by it (dlvsym), never by its name alone. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Version {
    String value();
}
