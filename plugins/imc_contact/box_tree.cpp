#include "box_tree.hpp"

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>

#include <algorithm>
#include <cstdint>

namespace soma::imc_contact {

/// FCL's objects: one box shape and one collision object per box, registered in one manager.
/// Each object's user data is its box index (so a pair reports its boxes without a search).
/// FCL's AABB of a box placed by its centre and sides can differ from the box by round-off, so
/// it is grown by this fraction of the box's size (plus a tiny absolute amount) and the exact
/// Box::overlaps test decides: no pair is lost to round-off, none is added.
constexpr double kRoundOffGrowth = 1e-9;

struct BoxTree::Objects {
    std::vector<Box> boxes;  ///< the exact boxes, for the final test
    std::vector<std::shared_ptr<fcl::Boxd>> shapes;
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
    fcl::DynamicAABBTreeCollisionManagerd manager;
    std::vector<Index> bucket_begin;                  ///< sort_pairs' counts, one per first index + 1
    std::vector<std::pair<Index, Index>> unsorted;    ///< sort_pairs' copy of the pairs

    void place(std::size_t i, const Box& box) {
        boxes[i] = box;
        const Vec3 side = box.high - box.low;
        shapes[i]->side = side.array() + kRoundOffGrowth * (side.maxCoeff() + box.high.cwiseAbs().maxCoeff()) + 1e-300;
        shapes[i]->computeLocalAABB();
        objects[i]->setTranslation(0.5 * (box.low + box.high));
        objects[i]->computeAABB();
    }
};

namespace {

Index index_of(const fcl::CollisionObjectd* object) {
    return static_cast<Index>(reinterpret_cast<std::uintptr_t>(object->getUserData()));
}

/// What a query collects: the pairs, and for a query across two trees which objects are ours.
struct Collected {
    std::vector<std::pair<Index, Index>>* pairs;
    const std::vector<std::unique_ptr<fcl::CollisionObjectd>>* first_objects;  ///< the first tree's objects
    const std::vector<Box>* first_boxes;   ///< the first tree's exact boxes
    const std::vector<Box>* second_boxes;  ///< the second's (the first's within one tree)
};

/// Sorts \p pairs, whose first indices are below \p first_count, by a counting sort on the first
/// index, then a sort of each bucket (most hold a few pairs): FCL reports pairs in tree order, and
/// one sort of the gripper's 1600 pairs per step was 1.5 % of its run.
void sort_pairs(std::vector<std::pair<Index, Index>>& pairs, std::size_t first_count, std::vector<Index>& bucket_begin,
                std::vector<std::pair<Index, Index>>& unsorted) {
    bucket_begin.assign(first_count + 1, 0);
    for (const auto& p : pairs) ++bucket_begin[static_cast<std::size_t>(p.first) + 1];
    for (std::size_t i = 0; i < first_count; ++i) bucket_begin[i + 1] += bucket_begin[i];
    unsorted.swap(pairs);
    pairs.resize(unsorted.size());
    for (const auto& p : unsorted) pairs[static_cast<std::size_t>(bucket_begin[static_cast<std::size_t>(p.first)]++)] = p;
    // bucket_begin[i] is now the end of bucket i.
    Index begin = 0;
    for (std::size_t i = 0; i < first_count; ++i) {
        const Index end = bucket_begin[i];
        std::sort(pairs.begin() + begin, pairs.begin() + end);  // an insertion sort for short ranges
        begin = end;
    }
}

}  // namespace

BoxTree::BoxTree() : objects_(std::make_unique<Objects>()) {}
BoxTree::~BoxTree() = default;
BoxTree::BoxTree(BoxTree&&) noexcept = default;
BoxTree& BoxTree::operator=(BoxTree&&) noexcept = default;

std::size_t BoxTree::size() const { return objects_->objects.size(); }

void BoxTree::set_boxes(const std::vector<Box>& boxes) {
    Objects& o = *objects_;
    if (boxes.size() != o.objects.size()) {
        // A new set (bind): objects for every box, registered once; later steps only move them.
        o.manager.clear();
        o.shapes.clear();
        o.objects.clear();
        o.boxes.resize(boxes.size());
        std::vector<fcl::CollisionObjectd*> raw;
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            o.shapes.push_back(std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0));
            o.objects.push_back(std::make_unique<fcl::CollisionObjectd>(o.shapes.back()));
            o.objects.back()->setUserData(reinterpret_cast<void*>(static_cast<std::uintptr_t>(i)));
            o.place(i, boxes[i]);
            raw.push_back(o.objects.back().get());
        }
        if (!raw.empty()) {
            o.manager.registerObjects(raw);
            o.manager.setup();
        }
        return;
    }
    for (std::size_t i = 0; i < boxes.size(); ++i) o.place(i, boxes[i]);
    if (!boxes.empty()) o.manager.update();  // refit (and rebalance) the tree
}

void BoxTree::overlapping_pairs(std::vector<std::pair<Index, Index>>& pairs) const {
    pairs.clear();
    if (size() < 2) return;
    Collected collected{&pairs, &objects_->objects, &objects_->boxes, &objects_->boxes};
    objects_->manager.collide(&collected, [](fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* data) {
        auto& c = *static_cast<Collected*>(data);
        const Index i = index_of(a), j = index_of(b);
        if ((*c.first_boxes)[static_cast<std::size_t>(i)].overlaps((*c.second_boxes)[static_cast<std::size_t>(j)]))
            c.pairs->emplace_back(std::min(i, j), std::max(i, j));
        return false;  // keep going
    });
    sort_pairs(pairs, size(), objects_->bucket_begin, objects_->unsorted);
}

void BoxTree::overlapping_pairs(const BoxTree& other, std::vector<std::pair<Index, Index>>& pairs) const {
    pairs.clear();
    if (size() == 0 || other.size() == 0) return;
    // FCL hands each pair as (object of one tree, object of the other) in an order it chooses:
    // the object's own collection says which tree it came from.
    Collected collected{&pairs, &objects_->objects, &objects_->boxes, &other.objects_->boxes};
    objects_->manager.collide(&other.objects_->manager, &collected,
                              [](fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* data) {
                                  auto& c = *static_cast<Collected*>(data);
                                  const Index i = index_of(a);
                                  const bool a_ours = i < static_cast<Index>(c.first_objects->size()) &&
                                                      (*c.first_objects)[static_cast<std::size_t>(i)].get() == a;
                                  const Index first = a_ours ? i : index_of(b), second = a_ours ? index_of(b) : i;
                                  if ((*c.first_boxes)[static_cast<std::size_t>(first)].overlaps(
                                          (*c.second_boxes)[static_cast<std::size_t>(second)]))
                                      c.pairs->emplace_back(first, second);
                                  return false;
                              });
    sort_pairs(pairs, size(), objects_->bucket_begin, objects_->unsorted);
}

}  // namespace soma::imc_contact
