/** Tests of the Spring AOT hints and of an application context run from AOT-generated code. */
@NullMarked
package dev.locksmith.spring.aot;

import org.jspecify.annotations.NullMarked;
