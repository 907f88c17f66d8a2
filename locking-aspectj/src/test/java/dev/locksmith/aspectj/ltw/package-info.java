/**
 * Compiled by plain javac, never by ajc: the load-time weaving test runs these classes in a child
 * JVM under {@code -javaagent:aspectjweaver.jar}.
 */
@NullMarked
package dev.locksmith.aspectj.ltw;

import org.jspecify.annotations.NullMarked;
