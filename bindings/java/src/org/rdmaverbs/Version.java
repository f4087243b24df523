package org.rdmaverbs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The symbol version node of a function of librdmaverbs (RDMAVERBS_1.3):
 * Loader finds the function by it (dlvsym), never by its name alone; and,
 * for one that a later rdma-core release brought than the oldest the
 * library is built on, that release: a build against older headers lacks
 * it, and its call then throws UnsupportedOperationException. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Version {
    /** The node. */
    String value();
    /** The rdma-core release that brought the function, or 0: in every build. */
    int since() default 0;
}
