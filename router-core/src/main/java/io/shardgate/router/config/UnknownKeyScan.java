package io.shardgate.router.config;

import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import io.shardgate.sharding.rule.UnknownKey;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Every key of a configuration tree that the record it will be read into does not know, with its
 * path ({@code hostgroups[0].pool.max_conections}) and the keys known there, found by walking the
 * tree along the types Jackson will bind it to, before binding: Jackson itself stops at the first
 * unknown key, and the paths it can tell while replaying a record's buffered properties are not
 * reliable. The known keys are those of Jackson's own deserializers, so this and the binding agree.
 * Sections kept as trees ({@code schemas}, {@code query_rules}, {@code cache}) are checked by their
 * own parsers, in the same format ({@link UnknownKey}).
 */
final class UnknownKeyScan {
    private final DeserializationContext context;

    UnknownKeyScan(ObjectMapper mapper) {
        this.context = ((DefaultDeserializationContext) mapper.getDeserializationContext())
                .createDummyInstance(mapper.getDeserializationConfig());
    }

    /** The unknown-key problems of {@code tree} read as {@code type}, in document order. */
    List<String> problems(JsonNode tree, Class<?> type) {
        List<String> out = new ArrayList<>();
        scan(tree, context.constructType(type), "", out);
        return out;
    }

    private void scan(JsonNode node, JavaType type, String path, List<String> out) {
        if (type.isCollectionLikeType() || type.isArrayType()) {
            if (node.isArray()) {
                for (int i = 0; i < node.size(); i++) {
                    scan(node.get(i), type.getContentType(), path + "[" + i + "]", out);
                }
            }
            return;
        }
        if (!node.isObject() || type.isMapLikeType() || JsonNode.class.isAssignableFrom(type.getRawClass())) {
            return; // a scalar (a type's short form, or a type error the binding reports), map keys, trees
        }
        JsonDeserializer<?> deserializer;
        try {
            deserializer = context.findRootValueDeserializer(type);
        } catch (JsonMappingException e) {
            return; // the binding reports it
        }
        if (!(deserializer instanceof BeanDeserializerBase bean)) {
            return;
        }
        TreeSet<String> known = new TreeSet<>();
        bean.getKnownPropertyNames().forEach(name -> known.add(name.toString()));
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String key = field.getKey();
            if (!known.contains(key)) {
                out.add(UnknownKey.problem(path, key, known));
                continue;
            }
            SettableBeanProperty property = bean.findProperty(key);
            if (property != null) {
                scan(field.getValue(), property.getType(), path.isEmpty() ? key : path + "." + key, out);
            }
        }
    }
}
