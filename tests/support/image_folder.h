#pragma once

// writeImageFolder: a folder of real JPEGs for a test, written by LoaderLab's own
// generator (what `loaderlab make-dataset` writes): `classes` class folders of
// `imagesPerClass` images each, short sides `minShortSide`..`maxShortSide` px. Returns
// `dir`. Throws as generateImageFolder does (the folder exists and is not empty, a
// write fails).

#include "core/tools/imagenette_generator.h"

#include <QString>

inline QString writeImageFolder(const QString &dir, int classes, int imagesPerClass,
                                int minShortSide, int maxShortSide)
{
    loaderlab::ImageFolderSpec spec;
    spec.classes = classes;
    spec.imagesPerClass = imagesPerClass;
    spec.minShortSide = minShortSide;
    spec.maxShortSide = maxShortSide;
    loaderlab::generateImageFolder(dir.toStdString(), spec);
    return dir;
}
